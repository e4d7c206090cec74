#include "hardtack_process_hardening.h"

#include <errno.h>
#include <sys/resource.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif

int hardtack_forbid_core_dumps(void) {
    int failure = 0;
#if defined(__linux__)
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) failure = errno;
#endif
    struct rlimit none = {0, 0};
    if (setrlimit(RLIMIT_CORE, &none) != 0 && failure == 0) failure = errno;
    return failure;
}

int hardtack_is_dumpable(void) {
#if defined(__linux__)
    return prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
#else
    return -1;
#endif
}
