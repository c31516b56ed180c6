/* kw_hwgen.c: build-time generator. Reads annotations/hw/amdgpu-occupancy.txt
 * (hardware facts as data, with their sources) and writes kw_hw_table.c, the
 * C table behind kw_co_hw_lookup(). Strict: an unknown key, a missing key or
 * a malformed number stops the build with file:line, so the table can never
 * silently disagree with the data file.
 *
 * Usage: kw_hwgen IN.txt OUT.c */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_ARCH = 64, MAX_STEPS = 8, MAX_PROCS = 256 };

typedef struct hw_arch {
    char name[32];
    unsigned long v[8]; /* in the order of keys[] */
    unsigned seen;      /* bit per key */
    unsigned steps[MAX_STEPS][2];
    unsigned nsteps;
    unsigned sgpr_default;
    char source[256];
} hw_arch;

static const char *const keys[] = {"mach",         "wave_size",          "simds_per_cu",
                                   "max_waves_per_simd", "vgprs_per_lane", "vgpr_granule",
                                   "lds_bytes_per_cu",   "max_barriers_per_cu"};
enum { NKEYS = sizeof(keys) / sizeof(keys[0]), KEY_SGPR = NKEYS, KEY_SOURCE = NKEYS + 1 };

static int fail(const char *path, int line, const char *what) {
    fprintf(stderr, "%s:%d: %s\n", path, line, what);
    return 1;
}

static int parse_num(const char *s, unsigned long *out) {
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 0);
    if (errno || end == s || *end)
        return -1;
    *out = v;
    return 0;
}

static int parse_steps(hw_arch *a, char *rest) {
    for (char *tok = strtok(rest, " \t"); tok; tok = strtok(NULL, " \t")) {
        char *colon = strchr(tok, ':');
        unsigned long lim, waves;
        if (!colon)
            return -1;
        *colon = '\0';
        if (parse_num(colon + 1, &waves))
            return -1;
        if (strcmp(tok, "*") == 0) {
            a->sgpr_default = (unsigned)waves;
            return strtok(NULL, " \t") ? -1 : 0; /* '*' must be last */
        }
        if (parse_num(tok, &lim) || a->nsteps == MAX_STEPS)
            return -1;
        a->steps[a->nsteps][0] = (unsigned)lim;
        a->steps[a->nsteps][1] = (unsigned)waves;
        a->nsteps++;
    }
    return -1; /* no '*' step */
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: kw_hwgen IN.txt OUT.c\n");
        return 2;
    }
    const char *in = argv[1];
    FILE *f = fopen(in, "r");
    if (!f) {
        fprintf(stderr, "%s: %s\n", in, strerror(errno));
        return 1;
    }
    static hw_arch archs[MAX_ARCH];
    static char procs[MAX_PROCS][32];
    int narch = 0, nprocs = 0, lineno = 0;
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *p = line;
        while (isspace((unsigned char)*p))
            p++;
        size_t n = strlen(p);
        while (n && isspace((unsigned char)p[n - 1]))
            p[--n] = '\0';
        if (!*p)
            continue;
        char *key = p;
        char *rest = p + strcspn(p, " \t");
        if (*rest)
            *rest++ = '\0';
        while (isspace((unsigned char)*rest))
            rest++;
        if (strcmp(key, "processors") == 0) {
            if (narch)
                return fail(in, lineno, "processors after the first arch block");
            for (char *tok = strtok(rest, " \t"); tok; tok = strtok(NULL, " \t")) {
                if (nprocs == MAX_PROCS || strlen(tok) >= sizeof procs[0] || strchr(tok, '"'))
                    return fail(in, lineno, "bad or too many processor names");
                snprintf(procs[nprocs++], sizeof procs[0], "%s", tok);
            }
            continue;
        }
        if (strcmp(key, "arch") == 0) {
            if (narch == MAX_ARCH || !*rest || strlen(rest) >= sizeof archs[0].name)
                return fail(in, lineno, "bad or too many arch lines");
            snprintf(archs[narch++].name, sizeof archs[0].name, "%s", rest);
            continue;
        }
        if (!narch)
            return fail(in, lineno, "key before the first arch line");
        hw_arch *a = &archs[narch - 1];
        if (strcmp(key, "sgpr_waves") == 0) {
            if (parse_steps(a, rest))
                return fail(in, lineno, "sgpr_waves: expected LIMIT:WAVES ... *:WAVES");
            a->seen |= 1u << KEY_SGPR;
            continue;
        }
        if (strcmp(key, "source") == 0) {
            if (strlen(rest) >= sizeof a->source || strchr(rest, '"') || strchr(rest, '\\'))
                return fail(in, lineno, "source: too long or holds a quote");
            snprintf(a->source, sizeof a->source, "%s", rest);
            a->seen |= 1u << KEY_SOURCE;
            continue;
        }
        int k;
        for (k = 0; k < NKEYS; k++)
            if (strcmp(key, keys[k]) == 0)
                break;
        if (k == NKEYS)
            return fail(in, lineno, "unknown key");
        if (parse_num(rest, &a->v[k]) || a->v[k] == 0 || a->v[k] > 0xffffffffUL)
            return fail(in, lineno, "expected a positive number");
        a->seen |= 1u << k;
    }
    fclose(f);
    for (int i = 0; i < narch; i++)
        if (archs[i].seen != (1u << (NKEYS + 2)) - 1) {
            fprintf(stderr, "%s: arch %s: missing keys\n", in, archs[i].name);
            return 1;
        }

    FILE *o = fopen(argv[2], "w");
    if (!o) {
        fprintf(stderr, "%s: %s\n", argv[2], strerror(errno));
        return 1;
    }
    fprintf(o, "/* Generated by kw_hwgen from %s. Do not edit. */\n", in);
    fprintf(o, "#include \"codeobj/kw_codeobj.h\"\n\nconst kw_co_hw kw_co_hw_table[] = {\n");
    for (int i = 0; i < narch; i++) {
        hw_arch *a = &archs[i];
        fprintf(o, "    {\"%s\", %#lx, %lu, %lu, %lu, %lu, %lu, %lu, %lu,\n     {", a->name,
                a->v[0], a->v[1], a->v[2], a->v[3], a->v[4], a->v[5], a->v[6], a->v[7]);
        for (unsigned s = 0; s < a->nsteps; s++)
            fprintf(o, "%s{%u, %u}", s ? ", " : "", a->steps[s][0], a->steps[s][1]);
        fprintf(o, "}, %u, %u, \"%s\"},\n", a->nsteps, a->sgpr_default, a->source);
    }
    fprintf(o, "};\nconst size_t kw_co_hw_count = %d;\n\n", narch);
    fprintf(o, "const char *const kw_co_hw_processors[] = {");
    for (int i = 0; i < nprocs; i++)
        fprintf(o, "%s\"%s\",", i % 6 ? " " : "\n    ", procs[i]);
    fprintf(o, "\n};\nconst size_t kw_co_hw_nprocessors = %d;\n", nprocs);
    if (fclose(o)) {
        fprintf(stderr, "%s: write failed\n", argv[2]);
        return 1;
    }
    return 0;
}
