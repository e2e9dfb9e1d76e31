#ifndef C_NIMBUS_THREAD_LOCAL_H
#define C_NIMBUS_THREAD_LOCAL_H

// The innermost context reference active on the current thread (Nimbus's queue checks,
// `QueueConfinement.swift`), as a C11 thread-local variable: Swift has no thread-local
// storage of its own, and `pthread_getspecific` is a call on every check, where these
// inline functions compile to one load from the thread's block. Initial-exec: the variable
// lives in a module loaded with the program, so no lookup function is needed.

#if defined(__ELF__)
#define NIMBUS_TLS_MODEL __attribute__((tls_model("initial-exec")))
#else
#define NIMBUS_TLS_MODEL
#endif

extern _Thread_local void *_Nullable nimbus_innermost_context NIMBUS_TLS_MODEL;

/// The innermost active context reference of this thread, unretained; NULL outside any.
static inline __attribute__((always_inline)) void *_Nullable nimbus_innermost_context_get(void) {
    return nimbus_innermost_context;
}

/// Makes `reference` (unretained) this thread's innermost active context reference.
static inline __attribute__((always_inline)) void nimbus_innermost_context_set(void *_Nullable reference) {
    nimbus_innermost_context = reference;
}

#endif
