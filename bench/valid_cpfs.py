"""Keeps the lines of stdin that are valid CPFs (check digits), at most 10,000: the export's
path is checked, and the bench data set also holds CPFs that only have the database's shape."""
import sys


def check_digit(digits, first_weight):
    r = sum(d * (first_weight - i) for i, d in enumerate(digits)) % 11
    return 0 if r < 2 else 11 - r


def valid(cpf):
    if len(cpf) != 11 or not cpf.isdigit() or len(set(cpf)) == 1:
        return False
    digits = [int(c) for c in cpf]
    return check_digit(digits[:9], 10) == digits[9] and check_digit(digits[:10], 11) == digits[10]


kept = 0
# Reads to the end, so that the writer never sees a closed pipe.
for line in sys.stdin:
    cpf = line.strip()
    if kept < 10000 and valid(cpf):
        print(cpf)
        kept += 1
