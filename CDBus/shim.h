// The one C header SnapDBus sees: the reference D-Bus library, libdbus-1 (libdbus-1-dev).
// Its include paths come from pkg-config's dbus-1 (Package.swift).
#include <dbus/dbus.h>
