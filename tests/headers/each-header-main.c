/* each-header-main.c: links the one-header-per-file units; the check is that they compiled. */
int main(void)
{
	return 0;
}
