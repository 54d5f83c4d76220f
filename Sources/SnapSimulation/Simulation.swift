public enum SnapSimulation {}
