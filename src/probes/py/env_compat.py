"""env.compat probe: what must fit together in the PyTorch stack.

Imports torch (seconds), unlike env_packages.py: torch.version.cuda, the architectures the build
carries (torch._C._cuda_getArchFlags, what torch.cuda.get_arch_list() returns on a machine with a
GPU), torch's NCCL, and for each package named on the command line its version and its
requirements on torch/triton from installed metadata (markers evaluated for this machine where the
'packaging' module is importable). Then it tries to import the compiled extensions whose
"undefined symbol" errors the course's troubleshooting table names. C++ (src/compat/) judges.
"""
import re
import sys

from _labcheck import alive, emit, stage

# Distribution name -> module whose import loads the compiled extension.
EXTENSIONS = {"flash-attn": "flash_attn_2_cuda", "bitsandbytes": "bitsandbytes"}
ALIASES = {"triton": ["pytorch-triton"]}


def normalize(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def marker_filter():
    for path in ("packaging.requirements", "pip._vendor.packaging.requirements"):
        try:
            module = __import__(path, fromlist=["Requirement"])
            return module.Requirement
        except Exception:
            continue
    return None


def requirements_on(dist, names, Requirement):
    found = []
    for line in dist.requires or []:
        head = re.match(r"\s*([A-Za-z0-9._-]+)", line)
        if not head or normalize(head.group(1)) not in names:
            continue
        text, _, marker = line.partition(";")
        if Requirement is not None:
            try:
                req = Requirement(line)
                if req.marker is not None and not req.marker.evaluate({"extra": ""}):
                    continue
                found.append(req.name + str(req.specifier))
                continue
            except Exception:
                pass
        if "extra" in marker:
            continue
        found.append(re.sub(r"[\s()]", "", text))
    return found


def package_facts(wanted):
    try:
        from importlib import metadata
    except ImportError:
        return {}, "importlib.metadata is missing (Python < 3.8)"
    Requirement = marker_filter()
    dists = {}
    for dist in metadata.distributions():
        try:
            name = dist.metadata["Name"]
        except Exception:
            continue
        if name:
            dists.setdefault(normalize(name), dist)
    out = {}
    for name in wanted:
        dist = None
        for candidate in [name] + ALIASES.get(name, []):
            dist = dists.get(normalize(candidate))
            if dist is not None:
                break
        if dist is None:
            out[name] = None
            continue
        out[name] = {"version": dist.version, "requires": requirements_on(dist, {"torch", "triton", "pytorch-triton"}, Requirement)}
    return out, None


def torch_facts():
    facts = {"import_error": None, "version": None, "cuda": None, "arch_list": None, "nccl": None}
    try:
        import torch
    except Exception as error:  # a broken install is a finding, not a crash
        facts["import_error"] = "%s: %s" % (type(error).__name__, error)
        return facts
    facts["version"] = getattr(torch, "__version__", None)
    facts["cuda"] = getattr(torch.version, "cuda", None)
    try:
        flags = torch._C._cuda_getArchFlags() if hasattr(torch._C, "_cuda_getArchFlags") else None
        facts["arch_list"] = flags.split() if flags else ([] if facts["cuda"] else None)
    except Exception:
        facts["arch_list"] = None
    try:
        if facts["cuda"]:
            version = torch.cuda.nccl.version()
            facts["nccl"] = ".".join(str(part) for part in version) if isinstance(version, tuple) else str(version)
    except Exception:
        facts["nccl"] = None
    return facts


def import_errors(packages):
    errors = {}
    for name, module in EXTENSIONS.items():
        if not packages.get(name):
            continue
        try:
            __import__(module)
            errors[name] = None
        except Exception as error:
            errors[name] = "%s: %s" % (type(error).__name__, str(error).splitlines()[0] if str(error) else "")
    return errors


def main(wanted):
    packages, error = package_facts(wanted)
    stage("import torch")
    torch = torch_facts()
    alive()  # the handshake: `import torch` came back (or failed, which is a finding)
    emit({"torch": torch, "packages": packages, "metadata_error": error,
          "imports": import_errors(packages) if torch["import_error"] is None else {}})


if __name__ == "__main__":
    main(sys.argv[1:])
