// pool_test.cpp: kwir-pool, the short ways of the IR analysis's expression
// pool (passes/kw_ir_sym.cpp) against its general ones on random
// expressions: add() of a term or sum and a constant against add()'s general
// pass (addTerms), and maxOfNonneg() from the signs of the terms against the
// same built through sub() (maxOfNonnegBySub). Nodes are unique per printed
// text, so each pair must give the very same node (or both none).
//
//   kwir-pool [N [SEED]]   N random pairs (default 200000) per seed (default:
//                          three fixed ones); exit 1 on a difference
#include "kw_ir_internal.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

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

// add(X, Y) the short way against the general pass: 1 (printed) when they differ.
long checkAdd(ExprPool &P, const Expr *X, const Expr *Y) {
    const Expr *Short = P.add(X, Y), *General = P.addTerms({X, Y});
    if (Short == General)
        return 0;
    std::printf("FAIL: add(%s, %s): %s, the general pass: %s\n", show(X), show(Y), show(Short),
                show(General));
    return 1;
}

// maxOfNonneg(A, B) against the same through sub(): 1 (printed) when they differ.
long checkMax(ExprPool &P, const Expr *A, const Expr *B, const Expr *&Short) {
    Short = P.maxOfNonneg(A, B);
    const Expr *General = P.maxOfNonnegBySub(A, B);
    if (Short == General)
        return 0;
    std::printf("FAIL: maxOfNonneg(%s, %s): %s, through sub(): %s\n", show(A), show(B), show(Short),
                show(General));
    return 1;
}

} // namespace

// One seed's N pairs; prints the counts, returns the differences (or 1 where
// the sample missed an outcome, which would leave it testing nothing).
static long run(long N, unsigned long long Seed) {
    std::mt19937_64 R(Seed);
    ExprPool P;
    long Bad = 0, Sums = 0, PickA = 0, PickB = 0, Both = 0;
    for (long I = 0; I < N && Bad < 10; I++) {
        const Expr *A = gen(P, R, 3), *B = gen(P, R, 3);
        if (!A || !B)
            continue;
        const Expr *C = P.num(R() % 8 == 0 ? INT64_MAX : (int64_t)(R() % 41) - 20);
        Bad += checkAdd(P, A, C) + checkAdd(P, C, A);
        Sums += 2;
        const Expr *Short;
        Bad += checkMax(P, A, B, Short);
        PickA += Short == A;
        PickB += Short == B && A != B;
        Both += Short && Short != A && Short != B;
    }
    std::printf("seed %llu: %ld sums with a constant; maxOfNonneg: %ld picked the first, %ld the "
                "second, %ld neither (max); %ld differences\n",
                Seed, Sums, PickA, PickB, Both, Bad);
    return Bad ? Bad : !PickA || !PickB || !Both;
}

// Sums the random pairs reach rarely: add() rewrites floor(a/c) + 1 as
// ceil((a+1)/c), which may then simplify into another term of the same sum,
// and leaves the two uncombined ("n - n"); adding a constant must combine
// them as the general pass does.
static long directed() {
    ExprPool P;
    const Expr *L = P.sym("loop0.trips");
    const Expr *Floor = P.floor(P.div(P.sub(P.mul(P.num(4), L), P.num(1)), P.num(4)));
    const Expr *Odd = P.add(std::vector<const Expr *>{Floor, P.num(1), P.mul(P.num(-1), L)});
    long Bad = 0;
    for (const Expr *A : {Odd, P.add(Odd, P.sym("n"))}) {
        for (int64_t C : {0, 1, 5, -3})
            Bad += checkAdd(P, A, P.num(C));
        const Expr *Short;
        for (const Expr *B : {L, P.num(2), P.sym("n")})
            Bad += checkMax(P, A, B, Short);
    }
    std::printf("directed: %s (%ld differences)\n", show(Odd), Bad);
    return Bad;
}

int main(int argc, char **argv) {
    long N = argc > 1 ? std::atol(argv[1]) : 200000;
    if (argc > 2)
        return run(N, std::strtoull(argv[2], nullptr, 10)) ? 1 : 0;
    // seed 7 found a sum with a rewritten floor that add() leaves uncombined
    long Bad = directed();
    for (unsigned long long Seed : {20261203ull, 7ull, 11ull})
        Bad += run(N, Seed);
    return Bad ? 1 : 0;
}
