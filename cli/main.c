/* main.c: the kwalk command's entry point: global options (--help,
 * --version) and the table of subcommands.
 *
 * Adding a subcommand NAME: one line in KW_COMMANDS below, and a file
 * cli/cmd_NAME.c defining int kw_cmd_NAME(int argc, char **argv), where
 * argv[0] is "NAME" and the result is the exit status (kw_cli.h). The build
 * picks up every cli/cmd_*.c by itself. */
#include <stdio.h>
#include <string.h>

#include "cli/kw_cli.h"
#include "cli/kw_decode_cache.h"
#include "common/kw_fs.h"

#ifndef KWALK_VERSION
#define KWALK_VERSION "unknown"
#endif

/* X(name, arguments, summary) */
#define KW_COMMANDS(X)                                                                             \
    X(index, "PATH... [-o FILE]", "gather sidecars (*.kwalk.yaml) into one database")              \
    X(list, "[--db FILE]", "list kernel instantiations with their launch sites and entry points")  \
    X(render, "KERNEL [--tu FILE] | --all -o DIR",                                                 \
      "write a kernel's walkthrough (Markdown), or all of them")                                   \
    X(site, "-o DIR [--db FILE]",                                                                  \
      "write the walkthroughs as a static HTML site (index table, source <-> ISA)")               \
    X(map, "[--db FILE]", "the kernel -> Python entry -> C++ entry -> launch -> device table") \
    X(isa, "FILE... [--kernel NAME]", "kernels, resources and ISA of code objects (no source needed)") \
    X(trace, "FILE [--db FILE]", "join a rocprofv3 kernel trace to instantiations: time, launches, bandwidth") \
    X(repro, "KERNEL [--db FILE] [-o FILE]", "a Python script that recompiles a Triton specialization") \
    X(compare, "A B [--db FILE] [-o FILE]", "two Triton specializations of one function side by side") \
    X(diff, "OLD NEW [--fail-on ...]", "what changed per instantiation between two builds (a CI gate)")

#define KW_DECLARE(name, args, summary) int kw_cmd_##name(int argc, char **argv);
KW_COMMANDS(KW_DECLARE)

typedef struct kw_command {
    const char *name;
    const char *args;
    const char *summary;
    int (*run)(int argc, char **argv);
} kw_command;

#define KW_ROW(name, args, summary) {#name, args, summary, kw_cmd_##name},
static const kw_command kw_commands[] = {KW_COMMANDS(KW_ROW)};

static int kw_main_help(void) {
    printf("usage: kwalk COMMAND [ARGS...]\n"
           "       kwalk --help | --version\n\n"
           "kwalk reads the sidecars (*.kwalk.yaml.zst, or *.kwalk.yaml) that the kwalk\n"
           "Clang plugin writes beside each object of a HIP build.\n\n"
           "commands:\n");
    for (size_t i = 0; i < sizeof(kw_commands) / sizeof(kw_commands[0]); i++)
        printf("  kwalk %-6s %-24s %s\n", kw_commands[i].name, kw_commands[i].args,
               kw_commands[i].summary);
    printf("\n'kwalk COMMAND --help' describes a command.\n"
           "exit status: 0 success, 1 bad input (one 'kwalk: ...' line on stderr), 2 usage error\n"
           "input files: regular files only, at most %llu MiB (sources, Python files,\n"
           "annotations), %llu GiB (sidecars, indexes, traces), %llu GiB (code objects,\n"
           "mapped, not read whole); larger ones are refused (docs/inputs.md)\n",
           (unsigned long long)(kw_fs_limit(KW_FS_TEXT) >> 20),
           (unsigned long long)(kw_fs_limit(KW_FS_DATA) >> 30),
           (unsigned long long)(kw_fs_limit(KW_FS_CODE) >> 30));
    return kw_cli_flush_stdout();
}

int main(int argc, char **argv) {
    if (argc < 2) {
        kw_cli_failf("no command given (see 'kwalk --help')");
        return KW_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (kw_cli_is_help(cmd) || !strcmp(cmd, "help"))
        return kw_main_help();
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
        printf("kwalk %s\n", KWALK_VERSION);
        return kw_cli_flush_stdout();
    }
    for (size_t i = 0; i < sizeof(kw_commands) / sizeof(kw_commands[0]); i++)
        if (!strcmp(cmd, kw_commands[i].name)) {
            kw_decode_cache_start();
            return kw_commands[i].run(argc - 1, argv + 1);
        }
    kw_cli_failf("unknown command '%s' (see 'kwalk --help')", cmd);
    return KW_EXIT_USAGE;
}
