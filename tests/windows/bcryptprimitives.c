/* Wine 8 (Debian 12's) has no bcryptprimitives.dll, whose ProcessPrng Rust's standard library
 * imports on Windows; this one-function stand-in, put beside devcoach.exe, lets the real
 * Windows build run under Wine for the launcher test. Later Wine releases ship the DLL. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
  while (length > 0) {
    ULONG chunk = length > 0x10000000 ? 0x10000000 : (ULONG)length;
    if (!SystemFunction036(data, chunk)) return FALSE;
    data += chunk;
    length -= chunk;
  }
  return TRUE;
}
