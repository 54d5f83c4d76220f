// Snap! on the network is built on the platform and the LAN's records: whoever imports
// SnapNet sees them too.
@_exported import SnapLAN
@_exported import SnapPlatform
