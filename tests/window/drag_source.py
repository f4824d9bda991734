#!/usr/bin/python3
"""A small window that offers files for drag and drop (text/uri-list), as a
file manager does, so that the window suite can drop them on Sift with the
mouse (xdotool) through the X drag-and-drop protocol. Debian's python3 with
GTK 3 (python3-gi, gir1.2-gtk-3.0).

    drag_source.py X Y PATH...   (prints "ready" once shown at X, Y)
"""
import sys

import gi

gi.require_version("Gdk", "3.0")
gi.require_version("Gtk", "3.0")
from gi.repository import Gdk, GLib, Gtk  # noqa: E402

x, y, paths = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
uris = [GLib.filename_to_uri(p, None) for p in paths]

window = Gtk.Window(title="sift-drag-source")
window.set_default_size(160, 120)
window.move(x, y)
source = Gtk.EventBox()
source.add(Gtk.Label(label="drag me"))
window.add(source)
source.drag_source_set(Gdk.ModifierType.BUTTON1_MASK, [], Gdk.DragAction.COPY)
source.drag_source_add_uri_targets()
source.connect("drag-data-get", lambda _w, _ctx, data, _info, _time: data.set_uris(uris))
window.connect("destroy", Gtk.main_quit)


def shown(*_):
    print("ready", flush=True)
    return False


window.connect("map-event", lambda *_: GLib.timeout_add(200, shown))
window.show_all()
Gtk.main()
