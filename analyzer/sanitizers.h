/* PD_SANITIZED: 1 when built with AddressSanitizer. Such builds keep every
 * allocation visible to it: per-block mallocs instead of slab chunks, and
 * the whole run freed before exit so leak checking sees every owner. */
#ifndef PD_SANITIZERS_H
#define PD_SANITIZERS_H

#if defined(__SANITIZE_ADDRESS__)
#define PD_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PD_SANITIZED 1
#endif
#endif
#ifndef PD_SANITIZED
#define PD_SANITIZED 0
#endif

#endif
