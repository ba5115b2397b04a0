//! (3) Super-objects by the augmented depth-first search, and the state layout.
