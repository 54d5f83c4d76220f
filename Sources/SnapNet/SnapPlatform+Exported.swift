// Snap! on the network is built on the platform: whoever imports SnapNet sees it too.
@_exported import SnapPlatform
