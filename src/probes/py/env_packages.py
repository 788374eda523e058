"""env.python probe: the interpreter, its site-packages and the versions of the course packages.

Fast on purpose: versions come from installed metadata (importlib.metadata, one pass over all
distributions) and torch's CUDA build from torch/version.py parsed as text, so nothing heavy is
imported. Arguments are the distribution names to look up; the C++ side owns the list.
Prints one result line through _labcheck.emit: see src/env/python_facts.h for the fields.
"""
import ast
import importlib.util
import os
import platform
import re
import site
import sys

from _labcheck import alive, emit

# Other distribution names a package ships under (nightly and ROCm builds of Triton).
ALIASES = {"triton": ["pytorch-triton", "pytorch-triton-rocm"]}


def normalize(name):
    # PEP 503: case-insensitive, runs of "-", "_" and "." are equivalent.
    return re.sub(r"[-_.]+", "-", name).lower()


def installed_versions():
    try:
        from importlib import metadata
    except ImportError:  # Python 3.7 and older
        return None, "importlib.metadata is missing (Python < 3.8)"
    versions = {}
    # Distributions come in sys.path order; the first one found is the one `import` would load.
    for dist in metadata.distributions():
        try:
            name = dist.metadata["Name"]
        except Exception:  # a broken .dist-info must not hide the others
            continue
        if name:
            versions.setdefault(normalize(name), dist.version)
    return versions, None


def torch_build():
    """torch/version.py holds __version__, cuda and hip as plain assignments."""
    spec = importlib.util.find_spec("torch")  # finds the package without importing it
    if spec is None or not spec.submodule_search_locations:
        return None
    path = os.path.join(list(spec.submodule_search_locations)[0], "version.py")
    build = {"version_py": path}
    try:
        with open(path, encoding="utf-8") as source:
            tree = ast.parse(source.read())
    except (OSError, SyntaxError, ValueError) as error:
        build["error"] = str(error)
        return build
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        for target in targets:
            if isinstance(target, ast.Name) and target.id in ("__version__", "cuda", "hip"):
                try:
                    build[target.id.strip("_")] = ast.literal_eval(value)
                except ValueError:
                    pass
    return build


def site_packages():
    """Directories packages are imported from, in import order (the GPU check looks for
    nvidia/*/lib in them)."""
    found = []

    def add(path):
        if path and os.path.isdir(path) and path not in found:
            found.append(path)

    for entry in sys.path:
        if os.path.basename(entry.rstrip(os.sep)) in ("site-packages", "dist-packages"):
            add(os.path.abspath(entry))
    try:
        for entry in site.getsitepackages():
            add(entry)
    except AttributeError:  # old virtualenv's site.py has no getsitepackages
        pass
    if site.ENABLE_USER_SITE:
        add(site.getusersitepackages())
    return found


def main(wanted):
    alive()  # nothing heavy is imported: an interpreter that gets here answers
    versions, error = installed_versions()
    packages = {}
    for name in wanted:
        version = None
        if versions is not None:
            for candidate in [name] + ALIASES.get(name, []):
                version = versions.get(normalize(candidate))
                if version is not None:
                    break
        packages[name] = version
    emit({
        "python": {
            "executable": sys.executable,
            "version": platform.python_version(),
            "implementation": platform.python_implementation(),
            "venv": sys.prefix != getattr(sys, "base_prefix", sys.prefix),
            "conda": os.path.isdir(os.path.join(sys.prefix, "conda-meta")),
            "site_packages": site_packages(),
        },
        "packages": packages,
        "metadata_error": error,
        "torch": torch_build(),
    })


if __name__ == "__main__":
    main(sys.argv[1:])
