// pool_test.cpp: kwir-pool, the short ways of the IR analysis's expression
// pool (passes/kw_ir_sym.cpp) against its general ones on random
// expressions: add() of a term or sum and a constant against add()'s general
// pass (addTerms), and maxOfNonneg() from the signs of the terms against the
// same built through sub() (maxOfNonnegBySub). Nodes are unique per printed
// text, so each pair must give the very same node (or both none).
//
//   kwir-pool [N [SEED]]   N random pairs (default 200000); exit 1 on a difference
#include "kw_ir_internal.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>

using namespace kwir;

namespace {

const Expr *gen(ExprPool &P, std::mt19937_64 &R, int Depth) {
    static const char *const Syms[] = {"n", "m", "loop0.trips", "threadIdx.x"};
    auto Sub = [&] { return gen(P, R, Depth - 1); };
    switch (Depth <= 0 ? R() % 2 : R() % 10) {
    case 0: {
        int64_t V = (int64_t)(R() % 21) - 10;
        if (R() % 32 == 0) // near the ends, for the overflow checks
            V = R() % 2 ? INT64_MAX - (int64_t)(R() % 3) : INT64_MIN + (int64_t)(R() % 3);
        return P.num(V);
    }
    case 1:
        return P.sym(Syms[R() % 4]);
    case 2:
        return P.add(Sub(), Sub());
    case 3:
        return P.sub(Sub(), Sub());
    case 4:
        return P.mul(Sub(), Sub());
    case 5:
        return P.mul(P.num((int64_t)(R() % 9) - 4), Sub());
    case 6:
        return P.div(Sub(), P.num((int64_t)(R() % 6) - 2)); // / 0 and / -1 too
    case 7:
        return P.floor(P.div(Sub(), P.num((int64_t)(R() % 4) + 2)));
    case 8:
        return P.ceil(P.div(Sub(), P.num((int64_t)(R() % 4) + 2)));
    default:
        return P.max({Sub(), Sub()});
    }
}

const char *show(const Expr *E) {
    return E ? E->text.c_str() : "(none)";
}

} // namespace

int main(int argc, char **argv) {
    long N = argc > 1 ? std::atol(argv[1]) : 200000;
    std::mt19937_64 R(argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 20261203);
    ExprPool P;
    long Bad = 0, Sums = 0, PickA = 0, PickB = 0, Both = 0;
    for (long I = 0; I < N && Bad < 10; I++) {
        const Expr *A = gen(P, R, 3), *B = gen(P, R, 3);
        if (!A || !B)
            continue;
        const Expr *C = P.num(R() % 8 == 0 ? INT64_MAX : (int64_t)(R() % 41) - 20);
        for (int Side = 0; Side < 2; Side++) {
            const Expr *X = Side ? C : A, *Y = Side ? A : C;
            const Expr *Short = P.add(X, Y), *General = P.addTerms({X, Y});
            Sums++;
            if (Short != General) {
                std::printf("FAIL: add(%s, %s): %s, the general pass: %s\n", show(X), show(Y),
                            show(Short), show(General));
                Bad++;
            }
        }
        const Expr *Short = P.maxOfNonneg(A, B), *General = P.maxOfNonnegBySub(A, B);
        if (Short != General) {
            std::printf("FAIL: maxOfNonneg(%s, %s): %s, through sub(): %s\n", show(A), show(B),
                        show(Short), show(General));
            Bad++;
        }
        PickA += Short == A;
        PickB += Short == B && A != B;
        Both += Short && Short != A && Short != B;
    }
    std::printf("%ld sums with a constant; maxOfNonneg: %ld picked the first, %ld the second, "
                "%ld neither (max); %ld differences\n",
                Sums, PickA, PickB, Both, Bad);
    // the sample must reach every outcome, or it tests nothing
    return Bad || !PickA || !PickB || !Both ? 1 : 0;
}
