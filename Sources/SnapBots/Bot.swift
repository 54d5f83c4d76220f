public enum SnapBots {}
