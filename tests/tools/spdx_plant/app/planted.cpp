// A source file without its licence line, which the check must catch.
int planted;
