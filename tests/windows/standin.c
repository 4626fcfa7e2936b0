/* Another devcoach, for the Windows launcher test: says it is version 0.0.9 when asked, else
 * names where it runs from and what it was given, and exits 7 (so the test sees that the
 * launcher hands the exit code back). */
#include <stdio.h>
#include <string.h>
#include <windows.h>

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--version") == 0) {
    puts("devcoach 0.0.9 (stand-in)");
    return 0;
  }
  char path[MAX_PATH];
  GetModuleFileNameA(NULL, path, MAX_PATH);
  printf("stand-in %s:", path);
  for (int i = 1; i < argc; i++) printf(" %s", argv[i]);
  printf("\n");
  return 7;
}
