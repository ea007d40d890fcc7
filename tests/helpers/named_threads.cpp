// named_threads MAIN_NAME [THREAD_NAME...]: a process whose main thread is
// named MAIN_NAME (prctl PR_SET_NAME, as a daemon names itself) and which
// starts one thread per THREAD_NAME, each naming itself (PR_SET_NAME) before
// it waits; prints "ready" once every thread is named, then waits to be
// killed. For affix apply's rules by comm and by thread name: nothing here
// touches its own CPU list.
#include <pthread.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cstdio>

namespace {

pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t g_named = PTHREAD_COND_INITIALIZER;
int g_named_count = 0;

void* named_thread(void* arg) {
  prctl(PR_SET_NAME, static_cast<const char*>(arg), 0, 0, 0);
  pthread_mutex_lock(&g_lock);
  ++g_named_count;
  pthread_cond_signal(&g_named);
  pthread_mutex_unlock(&g_lock);
  for (;;) pause();
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: named_threads MAIN_NAME [THREAD_NAME...]\n");
    return 2;
  }
  prctl(PR_SET_NAME, argv[1], 0, 0, 0);
  for (int i = 2; i < argc; ++i) {
    pthread_t t;
    if (pthread_create(&t, nullptr, named_thread, argv[i]) != 0) {
      std::perror("pthread_create");
      return 1;
    }
  }
  pthread_mutex_lock(&g_lock);
  while (g_named_count < argc - 2) pthread_cond_wait(&g_named, &g_lock);
  pthread_mutex_unlock(&g_lock);
  std::printf("ready\n");
  std::fflush(stdout);
  for (;;) pause();
}
