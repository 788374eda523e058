"""The start of the chosen interpreter (src/probes/interpreter.h): does it answer at all, where are
its site-packages, and, with --import-torch, does `import torch` come back.

Without --import-torch only the standard library is imported before the handshake, so a missed
handshake means the interpreter itself is stuck. With it, the handshake comes after `import torch`,
announced as a stage, so a missed handshake names that import.
Prints one result line: {"site_packages": [...], "torch_installed": bool, "torch_import_error": str|null}.
"""
import importlib.util
import site
import sys

from _labcheck import alive, emit, error_text, stage


def site_packages():
    """Where pip puts packages (and nvidia-cublas, nvidia-nccl): site's own list, the user site,
    then sys.path; lab_check keeps the *-packages folders, in this order."""
    paths = []
    try:
        paths += site.getsitepackages()
    except Exception:  # an old virtualenv's site.py has no getsitepackages
        pass
    try:
        paths.append(site.getusersitepackages())
    except Exception:
        pass
    return paths + list(sys.path)


def torch_installed():
    try:
        return importlib.util.find_spec("torch") is not None
    except Exception:  # a broken torch package: the import below says how
        return True


def main(argv):
    import_torch = "--import-torch" in argv
    result = {"site_packages": site_packages(), "torch_installed": torch_installed(), "torch_import_error": None}
    if import_torch and result["torch_installed"]:
        stage("import torch")
        try:
            import torch  # noqa: F401 (the import is the test)
        except BaseException as exc:  # an ImportError, a missing libcudart: it came back, and says why
            result["torch_import_error"] = error_text(exc)
    alive()
    emit(result)


if __name__ == "__main__":
    main(sys.argv[1:])
