#pragma once
// For the helper processes: threads that only wait to be killed.
#include <pthread.h>
#include <unistd.h>

#include <cstdio>

namespace helpers {

inline void* wait_forever(void*) {
  for (;;) pause();
  return nullptr;
}

// Starts `count` more threads that wait forever (64 KiB stacks); false, with
// the reason on stderr, where one cannot be created.
inline bool start_waiting_threads(long count) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 64 * 1024);
  for (long i = 0; i < count; ++i) {
    pthread_t t;
    if (pthread_create(&t, &attr, wait_forever, nullptr) != 0) {
      std::perror("pthread_create");
      pthread_attr_destroy(&attr);
      return false;
    }
  }
  pthread_attr_destroy(&attr);
  return true;
}

}  // namespace helpers
