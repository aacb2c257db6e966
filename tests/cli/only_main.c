// Input of the cli_only_main test: a program with main() alone, within the subset; main() is
// the program's driver, never the kernel unless named with --entry.
int main(void) {
  double a[100];
  for (int i = 0; i < 100; i++) a[i] = i;
  return (int)a[50];
}
