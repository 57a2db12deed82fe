import CofferCore
