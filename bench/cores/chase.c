/*
 * What the machine's cores share: run one copy, then two at once, and compare the times.
 *   chase alu          eight independent multiply chains (arithmetic only)
 *   chase BYTES        a random pointer chase through BYTES of memory (cache, then memory, latency)
 * docs/performance.md, issue 15, ninth round.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: chase alu | chase BYTES\n");
        return 2;
    }
    if (strcmp(argv[1], "alu") == 0) {
        uint64_t a = 1, b = 2, c = 3, d = 4, e = 5, f = 6, g = 7, h = 8;
        for (long i = 0; i < 1500000000L; i++) {
            a = a * 3 + 1; b = b * 5 + 1; c = c * 7 + 1; d = d * 9 + 1;
            e = e * 11 + 1; f = f * 13 + 1; g = g * 15 + 1; h = h * 17 + 1;
        }
        printf("%lu\n", (unsigned long) (a ^ b ^ c ^ d ^ e ^ f ^ g ^ h));
        return 0;
    }
    size_t n = (size_t) atol(argv[1]) / sizeof(uint64_t);
    if (n < 2) {
        fprintf(stderr, "chase: BYTES must be at least 16\n");
        return 2;
    }
    uint64_t *next = malloc(n * sizeof(uint64_t));
    if (next == NULL) {
        fprintf(stderr, "chase: cannot allocate %s bytes\n", argv[1]);
        return 1;
    }
    for (size_t i = 0; i < n; i++) {
        next[i] = i;
    }
    srand(1);
    for (size_t i = n - 1; i > 0; i--) {
        size_t j = (size_t) rand() % i;
        uint64_t t = next[i];
        next[i] = next[j];
        next[j] = t;
    }
    uint64_t at = 0;
    for (long i = 0; i < 200000000L; i++) {
        at = next[at];
    }
    printf("%lu\n", (unsigned long) at);
    free(next);
    return 0;
}
