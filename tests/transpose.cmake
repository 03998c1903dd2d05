cupat_test(test_transpose test_transpose.c)
