#include "emu/chipset/frame_stats.h"

#include <algorithm>
#include <bit>
#include <vector>

namespace copperline {

const char* cpuAccessKindName(CpuAccessKind kind) {
    switch (kind) {
    case CpuAccessKind::Fetch: return "fetch";
    case CpuAccessKind::Read: return "read";
    case CpuAccessKind::Write: return "write";
    }
    return "unknown";
}

namespace {

// A product term over A, B, C: for each input, whether it appears (care) and whether
// plainly (value). Input A is bit 2, B bit 1, C bit 0, as in the minterm's index.
struct Term {
    unsigned care = 0, value = 0;
    // The minterm indices (0-7) the term is true for, as a bit set.
    unsigned covers() const {
        unsigned set = 0;
        for (unsigned m = 0; m < 8; ++m)
            if ((m & care) == value) set |= 1u << m;
        return set;
    }
};

} // namespace

std::string mintermFormula(std::uint8_t lf) {
    if (lf == 0) return "0";
    if (lf == 0xFF) return "1";
    // Every term whose minterms all lie in LF; the prime ones are those no wider term in
    // the set contains. Three inputs make 27 terms, so a search over covers is cheap.
    std::vector<Term> implicants;
    for (unsigned care = 0; care < 8; ++care)
        for (unsigned value = 0; value < 8; ++value) {
            if (value & ~care) continue;
            const Term t{care, value};
            if ((t.covers() & ~unsigned(lf)) == 0) implicants.push_back(t);
        }
    std::vector<Term> primes;
    for (const Term& t : implicants) {
        const bool contained =
            std::any_of(implicants.begin(), implicants.end(), [&](const Term& u) {
                return u.covers() != t.covers() && (t.covers() & ~u.covers()) == 0;
            });
        if (!contained) primes.push_back(t);
    }
    // The cover with the fewest terms, then the fewest literals.
    unsigned best = 0, bestTerms = 99, bestLiterals = 99;
    for (unsigned subset = 1; subset < (1u << primes.size()); ++subset) {
        unsigned covered = 0, literals = 0;
        for (std::size_t i = 0; i < primes.size(); ++i)
            if (subset >> i & 1) {
                covered |= primes[i].covers();
                literals += unsigned(std::popcount(primes[i].care));
            }
        const unsigned terms = unsigned(std::popcount(subset));
        if (covered != lf) continue;
        if (terms < bestTerms || (terms == bestTerms && literals < bestLiterals)) {
            best = subset;
            bestTerms = terms;
            bestLiterals = literals;
        }
    }
    std::vector<Term> chosen;
    for (std::size_t i = 0; i < primes.size(); ++i)
        if (best >> i & 1) chosen.push_back(primes[i]);
    // Terms read A first: plain before negated before absent, then B, then C.
    const auto rank = [](const Term& t) {
        unsigned r = 0;
        for (unsigned bit = 3; bit-- > 0;)
            r = r * 3 + (!(t.care >> bit & 1) ? 2 : (t.value >> bit & 1) ? 0 : 1);
        return r;
    };
    std::sort(chosen.begin(), chosen.end(),
              [&](const Term& x, const Term& y) { return rank(x) < rank(y); });
    std::string out;
    for (const Term& t : chosen) {
        if (!out.empty()) out += '+';
        for (unsigned bit = 3; bit-- > 0;) {
            if (!(t.care >> bit & 1)) continue;
            if (!(t.value >> bit & 1)) out += '!';
            out += char('A' + (2 - bit));
        }
    }
    return out;
}

} // namespace copperline
