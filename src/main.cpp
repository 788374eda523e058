// lab_check: parses the command line and hands over to the app library (src/app).
#include "app/app.h"

int main(int argc, char** argv) { return labcheck::RunApp(argc, argv); }
