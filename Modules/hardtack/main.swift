print("hardtack")
