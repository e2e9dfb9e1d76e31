#!/usr/bin/env python3
"""Writes Tests/NimbusTests/Fixtures/Notebook2to3.xcmappingmodel/xcmapping.xml.

The file has the shape Xcode's mapping editor saves: a Core Data XML store of
XDDEVMAPPINGMODEL / XDDEVENTITYMAPPING / XDDEVATTRIBUTEMAPPING /
XDDEVRELATIONSHIPMAPPING objects, whose value expressions are NSKeyedArchiver
archives (binary property lists) of NSExpression objects, base64-encoded.
Run from the repository root: python3 Tests/FixtureTools/make_notebook_mapping.py
"""
import base64
import os
import plistlib


class Archive:
    """Builds an NSKeyedArchiver archive the way Foundation lays one out."""

    def __init__(self):
        self.objects = ["$null"]
        self.classes = {}

    def add(self, value):
        self.objects.append(value)
        return plistlib.UID(len(self.objects) - 1)

    def cls(self, name, chain):
        if name not in self.classes:
            self.classes[name] = self.add({"$classname": name, "$classes": chain + ["NSObject"]})
        return self.classes[name]

    def string(self, s):
        return self.add(s)

    def array(self, items):
        return self.add({"NS.objects": items, "$class": self.cls("NSArray", ["NSArray"])})

    def constant(self, value):
        v = self.add(value) if not isinstance(value, str) else self.string(value)
        return self.add({"NSExpressionType": 0, "NSConstantValue": v,
                         "$class": self.cls("NSConstantValueExpression", ["NSConstantValueExpression", "NSExpression"])})

    def variable(self, name):
        return self.add({"NSExpressionType": 2, "NSVariable": self.string(name),
                         "$class": self.cls("NSVariableExpression", ["NSVariableExpression", "NSExpression"])})

    def key_path(self, variable, path):
        specifier = self.add({"NSExpressionType": 10, "NSKeyPath": self.string(path),
                              "$class": self.cls("NSKeyPathSpecifierExpression", ["NSKeyPathSpecifierExpression", "NSExpression"])})
        return self.add({"NSExpressionType": 3, "NSOperand": self.variable(variable),
                         "NSSelectorName": self.string("valueForKeyPath:"), "NSArguments": self.array([specifier]),
                         "$class": self.cls("NSKeyPathExpression", ["NSKeyPathExpression", "NSFunctionExpression", "NSExpression"])})

    def function(self, operand, selector, arguments):
        return self.add({"NSExpressionType": 4, "NSOperand": operand, "NSSelectorName": self.string(selector),
                         "NSArguments": self.array(arguments),
                         "$class": self.cls("NSFunctionExpression", ["NSFunctionExpression", "NSExpression"])})

    def encode(self, root):
        plist = {"$version": 100000, "$archiver": "NSKeyedArchiver", "$top": {"root": root}, "$objects": self.objects}
        return base64.b64encode(plistlib.dumps(plist, fmt=plistlib.FMT_BINARY, sort_keys=False)).decode()


def expression(build):
    archive = Archive()
    return archive.encode(build(archive))


ids = iter(range(100, 1000))
objects = []


def attribute(name, mapping_id, expr=None, relationship=False):
    oid = "z%d" % next(ids)
    kind = "XDDEVRELATIONSHIPMAPPING" if relationship else "XDDEVATTRIBUTEMAPPING"
    lines = ['    <object type="%s" id="%s">' % (kind, oid),
             '        <attribute name="name" type="string">%s</attribute>' % name]
    if expr is None:
        lines.append('        <attribute name="autogenerateexpression" type="bool">1</attribute>')
    else:
        lines.append('        <attribute name="valueexpressiondata" type="binary">%s</attribute>' % expr)
    lines.append('        <relationship name="entitymapping" type="1/1" destination="XDDEVENTITYMAPPING" idrefs="%s"></relationship>' % mapping_id)
    lines.append('    </object>')
    objects.append("\n".join(lines))
    return oid


model_id = "z%d" % next(ids)
note_id, folder_id, tag_id = ("z%d" % next(ids) for _ in range(3))

folder_attrs = [
    attribute("createdAt", folder_id),
    attribute("title", folder_id, expression(lambda a: a.key_path("source", "name"))),
]
folder_rels = [
    attribute("notes", folder_id, expression(lambda a: a.function(
        a.variable("manager"), "destinationInstancesForEntityMappingNamed:sourceInstances:",
        [a.constant("NoteToNote"), a.key_path("source", "notes")])), relationship=True),
]
note_attrs = [
    attribute("pinned", note_id),
    attribute("priority", note_id, expression(lambda a: a.function(
        a.variable("entityPolicy"), "priorityForPinned:starred:",
        [a.key_path("source", "pinned"), a.key_path("source", "starred")]))),
    attribute("schemaVersion", note_id, expression(lambda a: a.constant(3))),
    attribute("text", note_id),
    attribute("thumbnail", note_id),
    attribute("title", note_id, expression(lambda a: a.function(a.key_path("source", "title"), "capitalizedString", []))),
    attribute("wordCount", note_id, expression(lambda a: a.key_path("source", "wordCount"))),
]
note_rels = [
    attribute("notebook", note_id, expression(lambda a: a.function(
        a.variable("manager"), "destinationInstancesForEntityMappingNamed:sourceInstances:",
        [a.constant("FolderToNotebook"), a.key_path("source", "folder")])), relationship=True),
]


def entity(oid, number, source, destination, kind, attrs, rels, policy=None, predicate=None):
    lines = ['    <object type="XDDEVENTITYMAPPING" id="%s">' % oid]
    if source:
        lines.append('        <attribute name="sourcename" type="string">%s</attribute>' % source)
    if destination:
        lines.append('        <attribute name="destinationname" type="string">%s</attribute>' % destination)
    lines.append('        <attribute name="mappingtypename" type="string">%s</attribute>' % kind)
    lines.append('        <attribute name="mappingnumber" type="int16">%d</attribute>' % number)
    if predicate:
        lines.append('        <attribute name="sourcefilterpredicatestring" type="string">%s</attribute>' % predicate)
    if policy:
        lines.append('        <attribute name="migrationpolicyclassname" type="string">%s</attribute>' % policy)
    lines.append('        <attribute name="autogenerateexpression" type="bool">1</attribute>')
    lines.append('        <relationship name="mappingmodel" type="1/1" destination="XDDEVMAPPINGMODEL" idrefs="%s"></relationship>' % model_id)
    lines.append('        <relationship name="attributemappings" type="0/0" destination="XDDEVATTRIBUTEMAPPING" idrefs="%s"></relationship>' % " ".join(attrs))
    lines.append('        <relationship name="relationshipmappings" type="0/0" destination="XDDEVRELATIONSHIPMAPPING" idrefs="%s"></relationship>' % " ".join(rels))
    lines.append('    </object>')
    objects.append("\n".join(lines))


entity(folder_id, 1, "Folder", "Notebook", "Transform", folder_attrs, folder_rels)
entity(note_id, 2, "Note", "Note", "Transform", note_attrs, note_rels,
       policy="NotebookApp.NoteMigrationPolicy", predicate="title != &quot;scratch&quot;")
entity(tag_id, 3, "Tag", None, "Remove", [], [])
objects.append("\n".join([
    '    <object type="XDDEVMAPPINGMODEL" id="%s">' % model_id,
    '        <attribute name="sourcemodelpath" type="string">Notebook/Notebook.xcdatamodeld/Notebook 2.xcdatamodel</attribute>',
    '        <attribute name="destinationmodelpath" type="string">Notebook/Notebook.xcdatamodeld/Notebook 3.xcdatamodel</attribute>',
    '        <relationship name="entitymappings" type="0/0" destination="XDDEVENTITYMAPPING" idrefs="%s %s %s"></relationship>' % (folder_id, note_id, tag_id),
    '    </object>']))

xml = '''<?xml version="1.0" standalone="yes"?>
<!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">

<database>
    <databaseInfo>
        <version>134481920</version>
        <UUID>7B0F3D0E-4C55-4D4B-9F0A-7E1D2C3B4A59</UUID>
        <nextObjectID>%d</nextObjectID>
        <metadata>
            <plist version="1.0">
                <dict>
                    <key>NSPersistenceFrameworkVersion</key>
                    <integer>1448</integer>
                    <key>NSStoreModelVersionHashesVersion</key>
                    <integer>3</integer>
                </dict>
            </plist>
        </metadata>
    </databaseInfo>
%s
</database>
''' % (next(ids), "\n".join(objects))
folder = "Tests/NimbusTests/Fixtures/Notebook2to3.xcmappingmodel"
os.makedirs(folder, exist_ok=True)
open(os.path.join(folder, "xcmapping.xml"), "w").write(xml)
