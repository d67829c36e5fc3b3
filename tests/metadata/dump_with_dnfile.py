"""Dumps the TypeDefs of .NET assemblies with dnfile (PyPI, a pure-Python metadata parser):
the second, independent source that tests/it/metadata_against_dnfile.rs compares fslens's
ECMA-335 reader with.

    python dump_with_dnfile.py A.dll [B.dll …]

Prints one JSON object: {"<path>": {"assembly": name, "types": [...]}}, each type with its
namespace, name, the row of its enclosing type (0 when not nested), its visibility, its
methods and fields with their accessibility, and its property and event names, in table order. The `<Module>` row is left out.
"""

import json
import sys

import dnfile

TYPE_VISIBILITY = [
    ("tdNestedFamORAssem", "protected internal"),
    ("tdNestedFamANDAssem", "private protected"),
    ("tdNestedAssembly", "internal"),
    ("tdNestedFamily", "protected"),
    ("tdNestedPrivate", "private"),
    ("tdNestedPublic", "public"),
    ("tdPublic", "public"),
    ("tdNotPublic", "internal"),
]

MEMBER_ACCESS = [
    ("FamORAssem", "protected internal"),
    ("FamANDAssem", "private protected"),
    ("Assem", "internal"),
    ("Assembly", "internal"),
    ("Family", "protected"),
    ("Public", "public"),
    ("Private", "private"),
    ("PrivateScope", "private"),
]


def type_visibility(flags) -> str:
    for attribute, name in TYPE_VISIBILITY:
        if getattr(flags, attribute, False):
            return name
    return "internal"


def member_access(flags, prefix: str) -> str:
    for attribute, name in MEMBER_ACCESS:
        if getattr(flags, prefix + attribute, False):
            return name
    return "private"


def dump(path: str) -> dict:
    pe = dnfile.dnPE(path)
    tables = pe.net.mdtables
    enclosing = {}
    if tables.NestedClass is not None:
        for row in tables.NestedClass.rows:
            enclosing[row.NestedClass.row_index] = row.EnclosingClass.row_index
    # PropertyMap / EventMap: the owning TypeDef row → the names of its properties / events.
    owned = {"properties": {}, "events": {}}
    for key, table, column in [("properties", tables.PropertyMap, "PropertyList"), ("events", tables.EventMap, "EventList")]:
        for row in table.rows if table is not None else []:
            owned[key][row.Parent.row_index] = [str(item.row.Name) for item in (getattr(row, column) or [])]
    assembly = tables.Assembly.rows[0].Name if tables.Assembly is not None and tables.Assembly.rows else None
    types = []
    for index, row in enumerate(tables.TypeDef.rows if tables.TypeDef is not None else []):
        row_number = index + 1
        if row_number == 1:
            continue  # <Module>
        types.append(
            {
                "row": row_number,
                "namespace": str(row.TypeNamespace or ""),
                "name": str(row.TypeName or ""),
                "enclosingRow": enclosing.get(row_number, 0),
                "visibility": type_visibility(row.Flags),
                "methods": [
                    {"name": str(method.row.Name), "access": member_access(method.row.Flags, "md")}
                    for method in (row.MethodList or [])
                ],
                "fields": [
                    {"name": str(field.row.Name), "access": member_access(field.row.Flags, "fd")}
                    for field in (row.FieldList or [])
                ],
                "properties": owned["properties"].get(row_number, []),
                "events": owned["events"].get(row_number, []),
            }
        )
    return {"assembly": str(assembly) if assembly is not None else None, "types": types}


if __name__ == "__main__":
    print(json.dumps({path: dump(path) for path in sys.argv[1:]}))
