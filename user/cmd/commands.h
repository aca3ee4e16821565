/* The subcommands of scope-bpf, one file each (user/cmd/<name>.c). */
#ifndef SB_COMMANDS_H
#define SB_COMMANDS_H

/* Each returns the process exit status: 0 ok, 1 failure, 2 usage or input error. */
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_inspect(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_scaling(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_merge(int argc, char **argv);

#endif
