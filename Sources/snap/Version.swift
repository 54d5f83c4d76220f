/// The one place the version is written: `snap --version` prints it, and whatever packages
/// snap takes it from there (from the built command), never from a second copy.
let snapVersion = "0.36.0"
