// kw_ir_sym.cpp: symbolic expressions of the facts grammar (docs/ir-facts.md).
// Built bottom-up with simplification: constants fold, like terms combine
// (`4*n - 4*n` is 0), a numeric factor distributes over a sum, and
// `floor(a/c) + 1` becomes `ceil((a+1)/c)` (exact for integers), so that a
// trip count SCEV gives `ceil((vocab - threadIdx.x)/1024)`. Every node is
// identified by its printed text.
#include "kw_ir_internal.h"

#include <algorithm>

namespace kwir {

namespace {

enum Prec { PAdd = 1, PMul = 2, PAtom = 3 };

int prec(const Expr *E) {
    switch (E->k) {
    case Expr::Add: return PAdd;
    case Expr::Mul:
    case Expr::Div: return PMul;
    case Expr::Num: return E->num < 0 ? PAdd : PAtom;
    default: return PAtom;
    }
}

std::string wrap(const Expr *E, int Need) {
    if (prec(E) < Need)
        return "(" + E->text + ")";
    return E->text;
}

// The coefficient of a term and the term without it.
int64_t coeffOf(const Expr *E) {
    if (E->k == Expr::Num)
        return E->num;
    if (E->k == Expr::Mul && E->ops[0]->k == Expr::Num)
        return E->ops[0]->num;
    return 1;
}

// Text of |term| (a Mul with a negative coefficient printed without the sign).
std::string absText(const Expr *E) {
    if (E->k == Expr::Num)
        return std::to_string(E->num < 0 ? -(uint64_t)E->num : (uint64_t)E->num);
    if (E->k != Expr::Mul)
        return wrap(E, PMul);
    // the node may be under construction (text not yet set): print its factors
    size_t First = E->ops[0]->k == Expr::Num ? 1 : 0;
    std::string S;
    for (size_t I = First; I < E->ops.size(); I++) {
        if (I > First)
            S += "*";
        S += wrap(E->ops[I], E->ops[I]->k == Expr::Div ? PAtom : PMul);
    }
    if (!First)
        return S;
    int64_t C = E->ops[0]->num;
    uint64_t AC = C < 0 ? -(uint64_t)C : (uint64_t)C;
    if (AC != 1)
        S += "*" + std::to_string(AC);
    return S;
}

std::string printNode(const Expr &E) {
    switch (E.k) {
    case Expr::Num: return std::to_string(E.num);
    case Expr::Sym: return E.sym;
    case Expr::Add: {
        std::string S;
        for (size_t I = 0; I < E.ops.size(); I++) {
            const Expr *T = E.ops[I];
            bool Neg = coeffOf(T) < 0;
            if (I == 0)
                S += Neg ? "-" + absText(T) : (T->k == Expr::Mul ? absText(T) : T->text);
            else
                S += (Neg ? " - " : " + ") + (Neg || T->k == Expr::Mul ? absText(T) : T->text);
        }
        return S;
    }
    case Expr::Mul: {
        if (E.ops[0]->k == Expr::Num && E.ops[0]->num < 0)
            return "-" + absText(&E);
        return absText(&E);
    }
    case Expr::Div: return wrap(E.ops[0], PMul) + "/" + wrap(E.ops[1], PAtom);
    case Expr::Floor:
    case Expr::Ceil:
    case Expr::Min:
    case Expr::Max:
    case Expr::Log2: {
        static const char *const Names[] = {"",      "",     "",    "",    "",
                                            "floor", "ceil", "min", "max", "log2"};
        std::string S = std::string(Names[E.k]) + "(";
        for (size_t I = 0; I < E.ops.size(); I++)
            S += (I ? ", " : "") + E.ops[I]->text;
        return S + ")";
    }
    }
    return "?";
}

// Integer-valued: no division outside floor/ceil.
bool isInt(const Expr *E) {
    if (E->k == Expr::Div || E->k == Expr::Log2)
        return false;
    if (E->k == Expr::Floor || E->k == Expr::Ceil)
        return true;
    return std::all_of(E->ops.begin(), E->ops.end(), isInt);
}

bool anyNull(const std::vector<const Expr *> &V) {
    return std::any_of(V.begin(), V.end(), [](const Expr *E) { return !E; });
}

// b divides a with a quotient that fits (INT64_MIN / -1 does not, and its
// remainder traps like a division by zero).
bool divides(int64_t B, int64_t A) {
    return B != 0 && !(B == -1 && A == INT64_MIN) && A % B == 0;
}

// A term of a sum as add() combines like terms: its coefficient and its
// factors without it (the term itself when it is not a product).
struct LinTerm {
    int64_t c;
    const Expr *const *f;
    size_t n;
    const Expr *self; // the factor when f is null
    const Expr *at(size_t I) const {
        return f ? f[I] : self;
    }
    bool like(const LinTerm &O) const {
        if (n != O.n)
            return false;
        for (size_t I = 0; I < n; I++)
            if (at(I) != O.at(I))
                return false;
        return true;
    }
};

// E as a term: its coefficient and factors.
LinTerm termOf(const Expr *E) {
    LinTerm L{1, nullptr, 1, E};
    if (E->k == Expr::Mul) {
        bool C = E->ops[0]->k == Expr::Num;
        L.c = C ? E->ops[0]->num : 1;
        L.f = E->ops.data() + C;
        L.n = E->ops.size() - C;
        L.self = nullptr;
    }
    return L;
}

} // namespace

const Expr *ExprPool::make(Expr E) {
    E.text = printNode(E);
    if (E.text.size() > 600) {
        Why = "expression too large";
        return nullptr;
    }
    auto It = ByText.find(E.text);
    if (It != ByText.end())
        return It->second;
    Store.push_back(std::move(E));
    const Expr *P = &Store.back();
    ByText[P->text] = P;
    return P;
}

const Expr *ExprPool::num(int64_t V) {
    auto It = Nums.find(V);
    if (It != Nums.end())
        return It->second;
    Expr E(Expr::Num);
    E.num = V;
    const Expr *P = make(std::move(E));
    if (P)
        Nums.emplace(V, P);
    return P;
}

const Expr *ExprPool::sym(llvm::StringRef Name) {
    Expr E(Expr::Sym);
    E.sym = Name.str();
    return make(std::move(E));
}

const Expr *ExprPool::sub(const Expr *A, const Expr *B) {
    if (!A || !B)
        return nullptr;
    return add(A, mul(num(-1), B));
}

// add({A, num(B)}) the short way, for what the work per thread adds most (a
// block's counts to a path's): A is a constant, a term, or a sum add() built,
// whose terms are combined and ordered already, so only the constant changes.
// The result is add()'s own; false where add()'s general pass must decide (a
// floor term, which it may rewrite, or a sum it did not build).
bool ExprPool::addConst(const Expr *A, int64_t B, const Expr *&R) {
    if (A->k == Expr::Num) {
        int64_t V;
        if (__builtin_add_overflow(A->num, B, &V)) {
            Why = "integer overflow";
            R = nullptr;
        } else {
            R = num(V);
        }
        return true;
    }
    std::vector<const Expr *> Out;
    int64_t Const = 0;
    int Nums = 0;
    const Expr *const *Ts = A->k == Expr::Add ? A->ops.data() : &A;
    size_t N = A->k == Expr::Add ? A->ops.size() : 1;
    for (size_t I = 0; I < N; I++) {
        const Expr *T = Ts[I];
        if (T->k == Expr::Add || T->k == Expr::Floor ||
            (T->k == Expr::Num && (++Nums > 1 || A->k != Expr::Add)))
            return false;
        if (T->k == Expr::Num) {
            Const = T->num;
            continue;
        }
        // a sum whose rewritten floor met another term (add() does not
        // combine them again there) is combined by the general pass
        LinTerm L = termOf(T);
        for (const Expr *O : Out)
            if (termOf(O).like(L))
                return false;
        Out.push_back(T);
    }
    if (B == 0) { // the same terms and constant in the same order: A
        R = A;
        return true;
    }
    if (__builtin_add_overflow(Const, B, &Const)) {
        Why = "integer overflow";
        R = nullptr;
        return true;
    }
    R = sumOf(std::move(Out), Const);
    return true;
}

const Expr *ExprPool::add(const Expr *A, const Expr *B) {
    if (!A || !B)
        return nullptr;
    const Expr *R;
    if (B->k == Expr::Num ? addConst(A, B->num, R) : A->k == Expr::Num && addConst(B, A->num, R))
        return R;
    return addTerms({A, B});
}

const Expr *ExprPool::add(std::vector<const Expr *> Ops) {
    if (Ops.size() == 2)
        return add(Ops[0], Ops[1]);
    return addTerms(std::move(Ops));
}

const Expr *ExprPool::addTerms(std::vector<const Expr *> Ops) {
    if (anyNull(Ops))
        return nullptr;
    // flatten, fold constants, combine like terms (keyed by the term without
    // its coefficient), keeping first-seen order
    int64_t Const = 0;
    std::vector<std::pair<int64_t, const Expr *>> Terms;
    std::vector<const Expr *> Work(Ops.rbegin(), Ops.rend());
    while (!Work.empty()) {
        const Expr *E = Work.back();
        Work.pop_back();
        if (E->k == Expr::Add) {
            for (auto It = E->ops.rbegin(); It != E->ops.rend(); ++It)
                Work.push_back(*It);
            continue;
        }
        if (E->k == Expr::Num) {
            if (__builtin_add_overflow(Const, E->num, &Const)) {
                Why = "integer overflow";
                return nullptr;
            }
            continue;
        }
        int64_t C = 1;
        const Expr *Mono = E;
        if (E->k == Expr::Mul && E->ops[0]->k == Expr::Num) {
            C = E->ops[0]->num;
            std::vector<const Expr *> Rest(E->ops.begin() + 1, E->ops.end());
            if (Rest.size() == 1) {
                Mono = Rest[0];
            } else {
                Expr M(Expr::Mul);
                M.ops = std::move(Rest);
                Mono = make(std::move(M));
                if (!Mono)
                    return nullptr;
            }
        }
        auto It = std::find_if(Terms.begin(), Terms.end(),
                               [&](const std::pair<int64_t, const Expr *> &T) { return T.second == Mono; });
        if (It == Terms.end())
            Terms.push_back({C, Mono});
        else if (__builtin_add_overflow(It->first, C, &It->first)) {
            Why = "integer overflow";
            return nullptr;
        }
    }
    std::vector<const Expr *> Out;
    for (auto &T : Terms) {
        if (T.first == 0)
            continue;
        const Expr *Term = T.first == 1 ? T.second : mul(num(T.first), T.second);
        if (!Term)
            return nullptr;
        Out.push_back(Term);
    }
    // floor(a/c) + 1 == ceil((a+1)/c) for integers a and c > 0: prefer the
    // ceil form when it absorbs a -1 inside a
    if (Const >= 1) {
        for (auto &T : Out) {
            if (T->k != Expr::Floor || T->ops[0]->k != Expr::Div)
                continue;
            const Expr *D = T->ops[0];
            if (D->ops[1]->k != Expr::Num || D->ops[1]->num <= 0)
                continue;
            const Expr *Num = D->ops[0];
            bool HasNegConst = Num->k == Expr::Add &&
                               std::any_of(Num->ops.begin(), Num->ops.end(), [](const Expr *O) {
                                   return O->k == Expr::Num && O->num < 0;
                               });
            if (!HasNegConst)
                continue;
            const Expr *C = ceil(div(add(Num, num(1)), D->ops[1]));
            if (!C)
                return nullptr;
            T = C;
            Const -= 1;
            break;
        }
    }
    return sumOf(std::move(Out), Const);
}

// The sum node of combined terms and a constant, as add() orders them.
const Expr *ExprPool::sumOf(std::vector<const Expr *> Terms, int64_t Const) {
    if (Const != 0 || Terms.empty())
        Terms.push_back(num(Const));
    if (Terms.size() == 1)
        return Terms[0];
    // the constant goes last; a leading negative term after a positive one reads better
    std::stable_partition(Terms.begin(), Terms.end(),
                          [](const Expr *E) { return E->k != Expr::Num; });
    std::stable_partition(Terms.begin(), Terms.end(), [](const Expr *E) { return coeffOf(E) > 0; });
    Expr E(Expr::Add);
    E.ops = std::move(Terms);
    return make(std::move(E));
}

const Expr *ExprPool::mul(std::vector<const Expr *> Ops) {
    if (anyNull(Ops))
        return nullptr;
    int64_t Coeff = 1;
    std::vector<const Expr *> Factors;
    std::vector<const Expr *> Work(Ops.rbegin(), Ops.rend());
    while (!Work.empty()) {
        const Expr *E = Work.back();
        Work.pop_back();
        if (E->k == Expr::Mul) {
            for (auto It = E->ops.rbegin(); It != E->ops.rend(); ++It)
                Work.push_back(*It);
            continue;
        }
        if (E->k == Expr::Num) {
            if (__builtin_mul_overflow(Coeff, E->num, &Coeff)) {
                Why = "integer overflow";
                return nullptr;
            }
            continue;
        }
        Factors.push_back(E);
    }
    if (Coeff == 0 || Factors.empty())
        return num(Coeff);
    if (Coeff == 1 && Factors.size() == 1)
        return Factors[0];
    // c * (a + b) -> c*a + c*b, so that like terms meet
    if (Factors.size() == 1 && Factors[0]->k == Expr::Add) {
        std::vector<const Expr *> Terms;
        for (const Expr *T : Factors[0]->ops)
            Terms.push_back(mul(num(Coeff), T));
        return add(std::move(Terms));
    }
    // c * (a / d) with d | c -> (c/d) * a
    if (Factors.size() == 1 && Factors[0]->k == Expr::Div && Factors[0]->ops[1]->k == Expr::Num &&
        divides(Factors[0]->ops[1]->num, Coeff))
        return mul(num(Coeff / Factors[0]->ops[1]->num), Factors[0]->ops[0]);
    Expr E(Expr::Mul);
    if (Coeff != 1)
        E.ops.push_back(num(Coeff));
    E.ops.insert(E.ops.end(), Factors.begin(), Factors.end());
    return make(std::move(E));
}

const Expr *ExprPool::div(const Expr *A, const Expr *B) {
    if (!A || !B)
        return nullptr;
    if (B->k == Expr::Num) {
        if (B->num == 0) {
            Why = "division by zero";
            return nullptr;
        }
        if (B->num == 1)
            return A;
        if (A->k == Expr::Num && divides(B->num, A->num))
            return num(A->num / B->num);
        if (A->k == Expr::Mul && A->ops[0]->k == Expr::Num && divides(B->num, A->ops[0]->num)) {
            std::vector<const Expr *> Rest(A->ops.begin() + 1, A->ops.end());
            Rest.push_back(num(A->ops[0]->num / B->num));
            return mul(std::move(Rest));
        }
    }
    if (A->k == Expr::Num && A->num == 0)
        return A;
    Expr E(Expr::Div);
    E.ops = {A, B};
    return make(std::move(E));
}

static bool numDiv(const Expr *A, int64_t &N, int64_t &D) {
    if (A->k == Expr::Num) {
        N = A->num;
        D = 1;
        return true;
    }
    if (A->k == Expr::Div && A->ops[0]->k == Expr::Num && A->ops[1]->k == Expr::Num) {
        N = A->ops[0]->num;
        D = A->ops[1]->num;
        return D != 0;
    }
    return false;
}

// floor/ceil of log2(n) for a number n > 0; false otherwise.
static bool numLog2(const Expr *A, bool Up, int64_t &Out) {
    if (A->k != Expr::Log2 || A->ops[0]->k != Expr::Num || A->ops[0]->num <= 0)
        return false;
    uint64_t V = (uint64_t)A->ops[0]->num;
    int64_t F = 63 - __builtin_clzll(V);
    Out = F + (Up && (V & (V - 1)) ? 1 : 0);
    return true;
}

const Expr *ExprPool::floor(const Expr *A) {
    if (!A)
        return nullptr;
    int64_t L;
    if (numLog2(A, false, L))
        return num(L);
    int64_t N, D;
    if (numDiv(A, N, D) && N != INT64_MIN && D != INT64_MIN) { // -N and -D fit
        if (D < 0) {
            N = -N;
            D = -D;
        }
        int64_t Q = N / D;
        if ((N % D != 0) && (N < 0))
            Q--;
        return num(Q);
    }
    if (isInt(A))
        return A; // integers are their own floor
    Expr E(Expr::Floor);
    E.ops = {A};
    return make(std::move(E));
}

const Expr *ExprPool::ceil(const Expr *A) {
    if (!A)
        return nullptr;
    int64_t L;
    if (numLog2(A, true, L))
        return num(L);
    int64_t N, D;
    if (numDiv(A, N, D) && N != INT64_MIN && D != INT64_MIN) { // -N and -D fit
        if (D < 0) {
            N = -N;
            D = -D;
        }
        int64_t Q = N / D;
        if ((N % D != 0) && (N > 0))
            Q++;
        return num(Q);
    }
    if (isInt(A))
        return A;
    Expr E(Expr::Ceil);
    E.ops = {A};
    return make(std::move(E));
}

const Expr *ExprPool::minmax(Expr::Kind K, std::vector<const Expr *> Ops) {
    if (anyNull(Ops))
        return nullptr;
    std::vector<const Expr *> Out;
    bool HaveNum = false;
    int64_t Best = 0;
    std::vector<const Expr *> Work(Ops.rbegin(), Ops.rend());
    while (!Work.empty()) {
        const Expr *E = Work.back();
        Work.pop_back();
        if (E->k == K) {
            for (auto It = E->ops.rbegin(); It != E->ops.rend(); ++It)
                Work.push_back(*It);
            continue;
        }
        if (E->k == Expr::Num) {
            Best = !HaveNum ? E->num : (K == Expr::Max ? std::max(Best, E->num) : std::min(Best, E->num));
            HaveNum = true;
            continue;
        }
        if (std::find(Out.begin(), Out.end(), E) == Out.end())
            Out.push_back(E);
    }
    if (HaveNum)
        Out.push_back(num(Best));
    if (Out.size() == 1)
        return Out[0];
    Expr E(K);
    E.ops = std::move(Out);
    return make(std::move(E));
}

const Expr *ExprPool::log2(const Expr *A) {
    if (!A)
        return nullptr;
    if (A->k == Expr::Num && A->num <= 0) {
        Why = "log2 of a non-positive number";
        return nullptr;
    }
    if (A->k == Expr::Num && (A->num & (A->num - 1)) == 0)
        return num(63 - __builtin_clzll((uint64_t)A->num));
    Expr E(Expr::Log2);
    E.ops = {A};
    return make(std::move(E));
}

const Expr *ExprPool::min(std::vector<const Expr *> Ops) { return minmax(Expr::Min, std::move(Ops)); }
const Expr *ExprPool::max(std::vector<const Expr *> Ops) { return minmax(Expr::Max, std::move(Ops)); }

const Expr *ExprPool::maxOf(const Expr *A, const Expr *B) {
    if (!A || !B)
        return nullptr;
    if (A == B)
        return A;
    const Expr *D = sub(A, B);
    if (D && D->k == Expr::Num)
        return D->num >= 0 ? A : B;
    return max({A, B});
}

// Every atom (symbol, function, division) >= 0: is E >= 0? (<= 0 with Neg)
static bool signOk(const Expr *E, bool Neg) {
    switch (E->k) {
    case Expr::Num: return Neg ? E->num <= 0 : E->num >= 0;
    case Expr::Add:
        return std::all_of(E->ops.begin(), E->ops.end(), [&](const Expr *T) { return signOk(T, Neg); });
    case Expr::Mul: {
        int64_t C = E->ops[0]->k == Expr::Num ? E->ops[0]->num : 1;
        return Neg ? C <= 0 : C >= 0;
    }
    default: return !Neg;
    }
}

namespace {

// Adds Sign x E's terms into T (like terms combined) and its constant into
// K. False where the arithmetic overflows, or where building A - B could
// rewrite a term: c*(a/d) becomes (c/d)*a once d divides the coefficient,
// which can change its sign and split a sum a into terms; -floor(...) may
// become a ceil in a sum of its own (linSign checks the sum A - B itself).
// The general way decides those.
bool linAdd(const Expr *E, int64_t Sign, llvm::SmallVectorImpl<LinTerm> &T, int64_t &K) {
    if (E->k == Expr::Add) {
        for (const Expr *O : E->ops)
            if (!linAdd(O, Sign, T, K))
                return false;
        return true;
    }
    int64_t V;
    if (E->k == Expr::Num)
        return !__builtin_mul_overflow(E->num, Sign, &V) && !__builtin_add_overflow(K, V, &K);
    LinTerm L = termOf(E);
    if (L.n == 1 && ((L.at(0)->k == Expr::Div && L.at(0)->ops[1]->k == Expr::Num) ||
                     (Sign < 0 && L.at(0)->k == Expr::Floor && L.c == -1)))
        return false;
    if (__builtin_mul_overflow(L.c, Sign, &L.c))
        return false;
    for (LinTerm &O : T)
        if (O.like(L))
            return !__builtin_add_overflow(O.c, L.c, &O.c);
    T.push_back(L);
    return true;
}

} // namespace

// The sign of A - B the way maxOfNonneg() reads it (every symbol and function
// >= 0), from the terms of A and B instead of building A - B: 1 when every
// coefficient and the constant are >= 0, -1 when all are <= 0, 0 when
// neither; false where sub() must be asked.
static bool linSign(const Expr *A, const Expr *B, int &Sign) {
    llvm::SmallVector<LinTerm, 16> T;
    int64_t K = 0;
    if (!linAdd(A, 1, T, K) || !linAdd(B, -1, T, K))
        return false;
    bool Pos = K >= 0, Neg = K <= 0;
    for (const LinTerm &L : T) {
        // floor(a/c) + 1 may become ceil((a+1)/c), and that simplify further
        if (K >= 1 && L.c == 1 && L.n == 1 && L.at(0)->k == Expr::Floor)
            return false;
        Pos = Pos && L.c >= 0;
        Neg = Neg && L.c <= 0;
    }
    Sign = Pos ? 1 : Neg ? -1 : 0;
    return true;
}

const Expr *ExprPool::maxOfNonneg(const Expr *A, const Expr *B) {
    if (!A || !B)
        return nullptr;
    if (A == B)
        return A;
    int Sign;
    if (linSign(A, B, Sign))
        return Sign > 0 ? A : Sign < 0 ? B : max({A, B});
    return maxOfNonnegBySub(A, B);
}

const Expr *ExprPool::maxOfNonnegBySub(const Expr *A, const Expr *B) {
    if (!A || !B)
        return nullptr;
    if (A == B)
        return A;
    const Expr *D = sub(A, B);
    if (D && signOk(D, false))
        return A;
    if (D && signOk(D, true))
        return B;
    return max({A, B});
}

} // namespace kwir
