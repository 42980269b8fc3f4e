"""Which results files each README figure is drawn from, and the stamp a figure carries of them
(standard library only: tools/docs.py --check reads it on a bare python3).

A figure is notebooks/figures/<name>.png, drawn by notebooks/<name>.ipynb (see
notebooks/render_figures.py). Its inputs are data, never code:

    the results files of every GPU that the notebook reads, in the folder it read them from:
    for each suffix in FIGURES[name], every `<tag><suffix>` of that folder whose tag the
    results reader accepts (`sgemm_ladder.results.gpus(folder, suffix)`: letters, digits and
    '-'), so that a new GPU's file is an input as soon as it is committed.

The notebooks read `<tag>.json` (sgemm_bench), `<tag>_sass.json` (tools/sass_report.py),
`<tag>_ncu.csv` (tools/ncu_profile.py) and `<tag>_model.json` (bench/model/model_bench.py); other
suites (`<tag>_workloads.json`, ...) are no figure's input. The drawing code (ladderplot, the
notebooks, the reader, matplotlib) is not an input: a change to how a figure looks is re-rendered
on purpose (notebooks/render_figures.py), while a results refresh can no longer leave the figures
behind.

The stamp is two tEXt chunks in the PNG, written by ladderplot.save_figure:

    SGEMM-Ladder-Inputs          the manifest: one line per input file, sorted by file name,
                                 "<sha256 of its bytes>  <file name>" (sha256sum's format), the
                                 bytes taken with CRLF line ends read as LF so that a checkout
                                 that converts line ends does not look stale; of a JSON file that
                                 keeps the fingerprints of the code it measured (tools/
                                 fingerprint.py), which no figure draws and every change to the
                                 library's sources updates, the bytes of the file written without
                                 them (json.dumps(doc, indent=1) and a line end, as the tools write)
    SGEMM-Ladder-Inputs-SHA256   the sha256 of the manifest (UTF-8): the figure's input hash

A figure is stale when its PNG is missing, carries no input hash, or carries another hash than the
files now in bench/results give (`stale()`).
"""
from __future__ import annotations

import hashlib
import json
import os
import struct
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
FIGURES_DIR = REPO / "notebooks" / "figures"
RESULTS_DIR = REPO / "bench" / "results"

# notebook (= figure) name -> the results suffixes it reads, for every GPU
FIGURES: dict[str, tuple[str, ...]] = {
    "ladder": (".json",),
    "scaling": (".json",),
    "accuracy": (".json",),
    "roofline": (".json", "_ncu.csv"),
    "sass": ("_sass.json", ".json"),  # <tag>.json for the GPUs' names
    "model": ("_model.json",),  # bench/model/model_bench.py
}
KEY_HASH = "SGEMM-Ladder-Inputs-SHA256"
KEY_MANIFEST = "SGEMM-Ladder-Inputs"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _tags(folder: Path, suffix: str) -> list[str]:
    try:
        from sgemm_ladder import results as reader
    except ImportError:  # tools run from a checkout: the package's source is python/
        import sys

        sys.path.insert(0, str(REPO / "python"))
        from sgemm_ladder import results as reader
    return reader.gpus(folder, suffix)


def inputs(name: str, folder: str | os.PathLike = RESULTS_DIR) -> list[Path]:
    """The files of `folder` that figure `name` is drawn from, sorted by file name."""
    folder = Path(folder)
    files = {folder / f"{tag}{suffix}" for suffix in FIGURES[name] for tag in _tags(folder, suffix)}
    return sorted(files, key=lambda p: p.name)


def file_hash(path: Path) -> str:
    data = path.read_bytes().replace(b"\r\n", b"\n")
    if path.suffix == ".json" and b'"fingerprints"' in data:
        try:
            doc = json.loads(data)
        except ValueError:
            doc = None
        if isinstance(doc, dict) and "fingerprints" in doc:
            doc.pop("fingerprints")
            data = (json.dumps(doc, indent=1) + "\n").encode("utf-8")
    return hashlib.sha256(data).hexdigest()


def manifest(name: str, folder: str | os.PathLike = RESULTS_DIR) -> str:
    """sha256sum-style lines of the figure's inputs ("" when there are none)."""
    return "".join(f"{file_hash(p)}  {p.name}\n" for p in inputs(name, folder))


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def stamp(name: str, folder: str | os.PathLike = RESULTS_DIR) -> dict[str, str]:
    """The text chunks to write into figure `name` drawn from `folder`."""
    text = manifest(name, folder)
    return {KEY_HASH: digest(text), KEY_MANIFEST: text}


# ---------------------------------------------------------------------------------------------
# Reading a PNG's text chunks (tEXt, zTXt, iTXt) with struct and zlib


class NotAPng(ValueError):
    pass


def png_text(path: str | os.PathLike) -> dict[str, str]:
    """The text chunks of the PNG at `path`, keyword -> text. Raises NotAPng (a ValueError) for a
    file that is not a PNG or whose chunks are cut short or fail their CRC."""
    data = Path(path).read_bytes()
    if not data.startswith(PNG_SIGNATURE):
        raise NotAPng(f"{path}: not a PNG (no PNG signature)")
    out, pos = {}, len(PNG_SIGNATURE)
    while pos + 12 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if len(body) != length or pos + 12 + length > len(data):
            raise NotAPng(f"{path}: chunk {kind!r} cut short")
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        if zlib.crc32(kind + body) & 0xFFFFFFFF != crc:
            raise NotAPng(f"{path}: chunk {kind!r} fails its CRC")
        pos += 12 + length
        if kind == b"IEND":
            return out
        try:
            if kind == b"tEXt":
                key, _, text = body.partition(b"\0")
                out[key.decode("latin-1")] = text.decode("latin-1")
            elif kind == b"zTXt":
                key, _, rest = body.partition(b"\0")
                out[key.decode("latin-1")] = zlib.decompress(rest[1:]).decode("latin-1")
            elif kind == b"iTXt":
                key, _, rest = body.partition(b"\0")
                compressed, rest = rest[0], rest[2:]
                _lang, _, rest = rest.partition(b"\0")
                _translated, _, text = rest.partition(b"\0")
                out[key.decode("latin-1")] = (zlib.decompress(text) if compressed else text).decode("utf-8")
        except (zlib.error, UnicodeDecodeError, IndexError) as e:
            raise NotAPng(f"{path}: unreadable {kind.decode('latin-1')} chunk ({e})") from None
    raise NotAPng(f"{path}: no IEND chunk (cut short)")


def recorded(png: str | os.PathLike) -> dict[str, str]:
    """The stamp a PNG carries ({} without one)."""
    text = png_text(png)
    return {k: text[k] for k in (KEY_HASH, KEY_MANIFEST) if k in text}


def _names(manifest_text: str) -> dict[str, str]:
    """file name -> hash of a manifest's lines."""
    out = {}
    for line in manifest_text.splitlines():
        h, _, name = line.partition("  ")
        if name:
            out[name] = h
    return out


def stale(name: str, png: str | os.PathLike | None = None,
          folder: str | os.PathLike = RESULTS_DIR) -> str | None:
    """Why figure `name` (the PNG `png`, default notebooks/figures/<name>.png) does not match the
    results in `folder`, or None when it does."""
    png = Path(png) if png is not None else FIGURES_DIR / f"{name}.png"
    if not png.is_file():
        return "missing"
    try:
        have = recorded(png)
    except NotAPng as e:
        return str(e)
    if KEY_HASH not in have:
        return "it records no input hash"
    want = manifest(name, folder)
    if have[KEY_HASH] == digest(want):
        return None
    old, new = _names(have.get(KEY_MANIFEST, "")), _names(want)
    if not old:
        return "its input hash differs from the results'"
    changed = sorted(n for n in old.keys() & new.keys() if old[n] != new[n])
    parts = [f"changed since it was drawn: {', '.join(changed)}"] if changed else []
    if new.keys() - old.keys():
        parts.append(f"not drawn from: {', '.join(sorted(new.keys() - old.keys()))}")
    if old.keys() - new.keys():
        parts.append(f"drawn from files no longer there: {', '.join(sorted(old.keys() - new.keys()))}")
    return "; ".join(parts) or "its input hash differs from the results'"
