// name_helper MAIN_NAME THREAD_NAME: a process that chooses its own names,
// as any process may: its main thread takes MAIN_NAME (prctl PR_SET_NAME;
// the kernel keeps the first 15 bytes, whatever they are), and a second
// thread writes THREAD_NAME into /proc/self/task/TID/comm and pins itself
// to the first CPU it may run on (so `affix show --pinned` lists the
// process). Prints "ready" once both are named, then waits to be killed.
#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "waiting_threads.hpp"

namespace {

const char* g_thread_name = "";
pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t g_named = PTHREAD_COND_INITIALIZER;
int g_status = -1;  // -1 not yet; 0 named and pinned; 1 failed

void report(int status) {
  pthread_mutex_lock(&g_lock);
  g_status = status;
  pthread_cond_signal(&g_named);
  pthread_mutex_unlock(&g_lock);
}

void* named_thread(void*) {
  std::string path = "/proc/self/task/" + std::to_string(syscall(SYS_gettid)) + "/comm";
  FILE* f = std::fopen(path.c_str(), "w");
  bool ok = f && std::fputs(g_thread_name, f) >= 0;
  if (f && std::fclose(f) != 0) ok = false;
  cpu_set_t set;
  if (ok && sched_getaffinity(0, sizeof set, &set) == 0) {
    int first = 0;
    while (first < CPU_SETSIZE && !CPU_ISSET(first, &set)) ++first;
    CPU_ZERO(&set);
    CPU_SET(first, &set);
    ok = sched_setaffinity(0, sizeof set, &set) == 0;
  }
  if (!ok) std::perror("name_helper: thread");
  report(ok ? 0 : 1);
  return helpers::wait_forever(nullptr);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: name_helper MAIN_NAME THREAD_NAME\n");
    return 2;
  }
  g_thread_name = argv[2];
  if (prctl(PR_SET_NAME, argv[1], 0, 0, 0) != 0) {
    std::perror("name_helper: PR_SET_NAME");
    return 1;
  }
  pthread_t t;
  if (pthread_create(&t, nullptr, named_thread, nullptr) != 0) {
    std::perror("name_helper: pthread_create");
    return 1;
  }
  pthread_mutex_lock(&g_lock);
  while (g_status < 0) pthread_cond_wait(&g_named, &g_lock);
  pthread_mutex_unlock(&g_lock);
  if (g_status != 0) return 1;
  std::printf("ready\n");
  std::fflush(stdout);
  helpers::wait_forever(nullptr);
}
