/* A devcoach.exe that cannot start, for the Windows launcher test: it ends at once with
 * STATUS_DLL_NOT_FOUND, the status Windows gives a program whose DLL is missing, whatever it
 * was asked (so the launcher must pass it over and say why). */
int main(void) {
  return (int)0xC0000135u;
}
