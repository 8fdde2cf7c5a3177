#define _GNU_SOURCE  // RTLD_DEEPBIND, RTLD_DEFAULT
#include "CVulkan.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FRAMEFARM_DEFINE_VULKAN_FUNCTION(name) PFN_##name name;
FRAMEFARM_VULKAN_FUNCTIONS(FRAMEFARM_DEFINE_VULKAN_FUNCTION)
#undef FRAMEFARM_DEFINE_VULKAN_FUNCTION

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[512];
static const char *requested_path;

static void open_loader(void) {
    const char *path = requested_path;
    if (path == NULL || path[0] == '\0') path = "libvulkan.so.1";
    // Kept open for the life of the process: Vulkan objects may be destroyed as late as exit.
    void *loader = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (loader == NULL) {
        const char *reason = dlerror();
        snprintf(failure, sizeof failure, "%s", reason ? reason : path);
        return;
    }
    // Every function used is Vulkan 1.0 core, which the loader exports by name.
#define FRAMEFARM_RESOLVE_VULKAN_FUNCTION(name) \
    name = (PFN_##name)dlsym(loader, #name); \
    if (name == NULL) { \
        snprintf(failure, sizeof failure, "%s does not export %s", path, #name); \
        return; \
    }
    FRAMEFARM_VULKAN_FUNCTIONS(FRAMEFARM_RESOLVE_VULKAN_FUNCTION)
#undef FRAMEFARM_RESOLVE_VULKAN_FUNCTION
}

int framefarm_vulkan_open(const char *_Nullable path, char *message, size_t capacity) {
    // Only the first call's path is used: pthread_once runs open_loader once, with the path set before it.
    static pthread_mutex_t path_lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&path_lock);
    if (requested_path == NULL && path != NULL) requested_path = strdup(path);
    pthread_mutex_unlock(&path_lock);
    pthread_once(&once, open_loader);
    if (failure[0] == '\0') return 0;
    snprintf(message, capacity, "%s", failure);
    return -1;
}

int framefarm_vulkan_deep_bind_driver(const char *path) {
    // Sanitizer runtimes intercept dlopen and refuse RTLD_DEEPBIND.
    static const char *const runtimes[] = {"__asan_init", "__tsan_init", "__msan_init", "__lsan_init",
                                           "__ubsan_handle_builtin_unreachable"};
    for (size_t i = 0; i < sizeof runtimes / sizeof *runtimes; i++) {
        if (dlsym(RTLD_DEFAULT, runtimes[i]) != NULL) return 0;
    }
    // Never closed: the loader may close and reopen the driver with each instance.
    return dlopen(path, RTLD_LAZY | RTLD_LOCAL | RTLD_DEEPBIND) != NULL;
}
