def mul(a, b):
    return a * b


def test_mul_small():
    assert mul(2, 3) == 6


def test_mul():
    assert mul(2, 2) == 5
