# The fast point-training path (mlp.c kernels, fast tanh, Adam) against MPFR and a long double reference (serial).
sr_add_mpi_test(NAME mlp_fast COMMAND test_mlp_fast RANKS 1 TIMEOUT 60)
