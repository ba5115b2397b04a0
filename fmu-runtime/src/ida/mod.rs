//! (5) The only module that touches `sundials_sys`: a safe IDA integrator.
