/* Threads for the thread pool (internal, part of the platform layer:
 * platform.h). Header only, so that the thread pool library
 * (engine/threads/) needs nothing of the engine's internals: pthreads on
 * POSIX systems; on Windows SRWLOCK, CONDITION_VARIABLE and _beginthreadex
 * (no winpthreads, and what MSVC has too). */
#ifndef SN_PLATFORM_THREADS_H
#define SN_PLATFORM_THREADS_H

#include <stdbool.h>

#if defined(_WIN32)
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#include <process.h>

typedef SRWLOCK sn_mutex;
typedef CONDITION_VARIABLE sn_cond;
/// A thread: the system's handle and what it runs.
typedef struct sn_thread {
  HANDLE handle;
  void (*fn)(void *);
  void *arg;
} sn_thread;

static inline bool sn_mutex_init(sn_mutex *m) {
  InitializeSRWLock(m);
  return true;
}
static inline void sn_mutex_destroy(sn_mutex *m) { (void)m; }
static inline void sn_mutex_lock(sn_mutex *m) { AcquireSRWLockExclusive(m); }
static inline void sn_mutex_unlock(sn_mutex *m) { ReleaseSRWLockExclusive(m); }
static inline void sn_cond_init(sn_cond *c) { InitializeConditionVariable(c); }
static inline void sn_cond_destroy(sn_cond *c) { (void)c; }
/// Waits (spurious wake-ups are possible: callers re-check their condition).
static inline void sn_cond_wait(sn_cond *c, sn_mutex *m) { SleepConditionVariableSRW(c, m, INFINITE, 0); }
static inline void sn_cond_broadcast(sn_cond *c) { WakeAllConditionVariable(c); }

static inline unsigned __stdcall sn_thread_main(void *arg) {
  sn_thread *t = (sn_thread *)arg;
  t->fn(t->arg);
  return 0;
}
/// Starts fn(arg) on a new thread; *t must stay in place until sn_thread_join.
static inline bool sn_thread_start(sn_thread *t, void (*fn)(void *), void *arg) {
  t->fn = fn;
  t->arg = arg;
  uintptr_t h = _beginthreadex(NULL, 0, sn_thread_main, t, 0, NULL);
  t->handle = (HANDLE)h;
  return h != 0;
}
static inline void sn_thread_join(sn_thread *t) {
  WaitForSingleObject(t->handle, INFINITE);
  CloseHandle(t->handle);
}
#else
#include <pthread.h>

typedef pthread_mutex_t sn_mutex;
typedef pthread_cond_t sn_cond;
/// A thread: the system's handle and what it runs.
typedef struct sn_thread {
  pthread_t handle;
  void (*fn)(void *);
  void *arg;
} sn_thread;

static inline bool sn_mutex_init(sn_mutex *m) { return pthread_mutex_init(m, NULL) == 0; }
static inline void sn_mutex_destroy(sn_mutex *m) { pthread_mutex_destroy(m); }
static inline void sn_mutex_lock(sn_mutex *m) { pthread_mutex_lock(m); }
static inline void sn_mutex_unlock(sn_mutex *m) { pthread_mutex_unlock(m); }
static inline void sn_cond_init(sn_cond *c) { pthread_cond_init(c, NULL); }
static inline void sn_cond_destroy(sn_cond *c) { pthread_cond_destroy(c); }
/// Waits (spurious wake-ups are possible: callers re-check their condition).
static inline void sn_cond_wait(sn_cond *c, sn_mutex *m) { pthread_cond_wait(c, m); }
static inline void sn_cond_broadcast(sn_cond *c) { pthread_cond_broadcast(c); }

static inline void *sn_thread_main(void *arg) {
  sn_thread *t = (sn_thread *)arg;
  t->fn(t->arg);
  return NULL;
}
/// Starts fn(arg) on a new thread; *t must stay in place until sn_thread_join.
static inline bool sn_thread_start(sn_thread *t, void (*fn)(void *), void *arg) {
  t->fn = fn;
  t->arg = arg;
  return pthread_create(&t->handle, NULL, sn_thread_main, t) == 0;
}
static inline void sn_thread_join(sn_thread *t) { pthread_join(t->handle, NULL); }
#endif

#endif /* SN_PLATFORM_THREADS_H */
