import CofferSync
