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
    Expr E(Expr::Num);
    E.num = V;
    return make(std::move(E));
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

const Expr *ExprPool::add(std::vector<const Expr *> Ops) {
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
    if (Const != 0 || Out.empty())
        Out.push_back(num(Const));
    if (Out.size() == 1)
        return Out[0];
    // the constant goes last; a leading negative term after a positive one reads better
    std::stable_partition(Out.begin(), Out.end(), [](const Expr *E) { return E->k != Expr::Num; });
    std::stable_partition(Out.begin(), Out.end(), [](const Expr *E) { return coeffOf(E) > 0; });
    Expr E(Expr::Add);
    E.ops = std::move(Out);
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
        Factors[0]->ops[1]->num != 0 && Coeff % Factors[0]->ops[1]->num == 0)
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
        if (A->k == Expr::Num && A->num % B->num == 0)
            return num(A->num / B->num);
        if (A->k == Expr::Mul && A->ops[0]->k == Expr::Num && A->ops[0]->num % B->num == 0) {
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
    if (numDiv(A, N, D)) {
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
    if (numDiv(A, N, D)) {
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

const Expr *ExprPool::maxOfNonneg(const Expr *A, const Expr *B) {
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
