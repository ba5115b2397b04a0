//! (4) Kinematics forward pass, inverse dynamics backward pass, the DAE residual.
