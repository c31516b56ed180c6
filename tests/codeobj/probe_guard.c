/* probe_guard.c (kwco-probe-guard): hands crafted encodings to the LLVM
 * disassembler the library uses (kw_co_llvm.h: the linked libLLVM), each in a
 * forked child, and says whether LLVM crashed, next to what the library's
 * guard (kw_co_guard_refuses) decides for the same bytes. check_guard.py
 * drives it: the guard must refuse exactly the encodings that crash.
 *
 *   kwco-probe-guard < LINES     LINE: "ARCH WORD..." (32-bit words, hex)
 *   out, one line each:          "guard=G crash=C size=N text=TEXT"
 *     G: 1 when the guard refuses the bytes (0 otherwise)
 *     C: 0 | the signal that ended the child | "hang" (no answer in 10 s)
 *     N, TEXT: LLVM's decoded size and text (0 and empty when invalid)
 *   kwco-probe-guard --version   the linked LLVM's major version */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "codeobj/kw_co_internal.h"
#include "codeobj/kw_co_llvm.h"

enum { PAD = 16, MAXW = 8 };

/* One disassembler context per processor, made in the parent before the
 * fork (creating one costs tens of milliseconds). */
static LLVMDisasmContextRef context(const kw_co_llvm *llvm, const char *arch) {
    static char arches[16][64];
    static LLVMDisasmContextRef dcs[16];
    static int n;
    for (int i = 0; i < n; i++)
        if (strcmp(arches[i], arch) == 0)
            return dcs[i];
    if (n == 16)
        return NULL;
    LLVMDisasmContextRef dc = llvm->create("amdgcn-amd-amdhsa", arch, "", NULL, 0, NULL, NULL);
    if (dc) {
        snprintf(arches[n], sizeof arches[n], "%s", arch);
        dcs[n++] = dc;
    }
    return dc;
}

/* In the child: disassemble and write "N TEXT" to fd. */
static void child(const kw_co_llvm *llvm, LLVMDisasmContextRef dc, unsigned char *bytes, size_t n,
                  int fd) {
    /* A crash must end the child by its signal, which the parent reads as
     * "crashes": take back the handlers a sanitizer runtime installed (with
     * ASan, its report would otherwise turn the SIGSEGV into exit code 1). */
    static const int sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        signal(sigs[i], SIG_DFL);
    alarm(10);
    char buf[1024] = "";
    size_t got = llvm->disasm(dc, bytes, n + PAD, 0, buf, sizeof buf);
    char out[1100];
    const char *t = buf;
    while (*t == ' ' || *t == '\t')
        t++;
    int len = snprintf(out, sizeof out, "%zu %s", got, got ? t : "");
    if (write(fd, out, (size_t)len) != len)
        _exit(4);
    _exit(0);
}

static int probe(const kw_co_llvm *llvm, char *line) {
    char arch[64];
    int used = 0;
    if (sscanf(line, "%63s%n", arch, &used) != 1)
        return 1;
    unsigned char bytes[MAXW * 4 + PAD] = {0};
    size_t nw = 0;
    char *p = line + used, *end;
    for (unsigned long w; nw < MAXW && (w = strtoul(p, &end, 16), end != p); p = end, nw++)
        for (int b = 0; b < 4; b++)
            bytes[nw * 4 + b] = (unsigned char)(w >> (8 * b));
    if (!nw)
        return 1;
    LLVMDisasmContextRef dc = context(llvm, arch);
    if (!dc)
        return 1;
    int guard = kw_co_guard_refuses(llvm, dc, arch, bytes, nw * 4);
    int fds[2];
    if (pipe(fds) != 0)
        return 1;
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return 1;
    if (pid == 0) {
        close(fds[0]);
        child(llvm, dc, bytes, nw * 4, fds[1]);
    }
    close(fds[1]);
    char out[1100];
    size_t got = 0;
    for (ssize_t r;
         got < sizeof out - 1 && (r = read(fds[0], out + got, sizeof out - 1 - got)) > 0;)
        got += (size_t)r;
    out[got] = 0;
    close(fds[0]);
    int status = 0;
    if (waitpid(pid, &status, 0) != pid)
        return 1;
    char crash[16] = "0";
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
        snprintf(crash, sizeof crash, "hang");
    else if (WIFSIGNALED(status))
        snprintf(crash, sizeof crash, "%d", WTERMSIG(status));
    if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
        return 1;
    size_t size = 0;
    int tl = 0;
    if (!WIFSIGNALED(status))
        sscanf(out, "%zu %n", &size, &tl);
    printf("guard=%d crash=%s size=%zu text=%s\n", guard, crash, size,
           WIFSIGNALED(status) ? "" : out + tl);
    return 0;
}

int main(int argc, char **argv) {
    kw_err err;
    const kw_co_llvm *llvm = kw_co_llvm_get(&err);
    if (!llvm) {
        fprintf(stderr, "kwco-probe-guard: %s\n", err.msg);
        return 1;
    }
    if (argc == 2 && strcmp(argv[1], "--version") == 0) {
        printf("%u\n", llvm->major);
        return 0;
    }
    char line[512];
    while (fgets(line, sizeof line, stdin))
        if (probe(llvm, line) != 0) {
            fprintf(stderr, "kwco-probe-guard: cannot probe: %s", line);
            return 1;
        }
    return 0;
}
