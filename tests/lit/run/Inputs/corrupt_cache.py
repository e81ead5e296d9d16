"""corrupt_cache.py DIR truncate|foreign|edit-source: damages every entry of the kernel cache
DIR as cache_verification.kir needs: the library cut short, the library replaced by a file
that is not one, or the stored source edited."""
import pathlib
import sys

cache, how = pathlib.Path(sys.argv[1]), sys.argv[2]
for library in cache.glob("*.so"):
    if how == "truncate":
        library.write_bytes(library.read_bytes()[:100])
    elif how == "foreign":
        library.write_bytes(b"not a shared library\n")
    elif how == "edit-source":
        source = library.with_suffix(".cpp")
        source.write_text(source.read_text() + "// edited\n")
    else:
        sys.exit(f"corrupt_cache.py: unknown damage '{how}'")
