cupat_test(test_stencil1d test_stencil1d.c)
