// std::regex's compiler and matcher generated once, in regex_instances.cpp, instead of in every
// file that uses a regex.
//
// libstdc++'s regex is all templates: a file that built one std::regex and searched with it spent
// about 3 s of a compile at -O2 generating the regex compiler and executor again (0.7 s with these
// declarations; a two-function file, measured in isolation, issue 24), and 24 units of a first
// build each carried a copy (nm). Files include this instead of <regex>: `extern template` tells
// their units not to instantiate these, and regex_instances.cpp instantiates them once. It is not
// in the precompiled header: there it made each of the ~60 units that use no regex load more.
//
// The names are libstdc++'s internals, and __regex_algo_impl's signature changed between GCC 11
// and 12, so the declarations are made for libstdc++ 12 (Debian 12's g++) only; under any other
// standard library each unit instantiates what it uses, as before.
#pragma once
#include <regex>
#include <string>

#if defined(__GLIBCXX__) && defined(_GLIBCXX_RELEASE) && _GLIBCXX_RELEASE == 12
#define LAB_CHECK_REGEX_EXTERN_TEMPLATES 1

namespace labcheck::regex_instances {
// What std::regex_search and std::regex_match over a std::string and over a const char* match with.
using StringIt = std::string::const_iterator;
using StringMatches = std::allocator<std::sub_match<StringIt>>;
using CharIt = const char*;
using CharMatches = std::allocator<std::sub_match<CharIt>>;
}  // namespace labcheck::regex_instances

// What std::regex_search and std::regex_match call for one kind of iterator.
#define LAB_CHECK_REGEX_ALGO(kind, It, Matches)                                                     \
  kind template bool std::__detail::__regex_algo_impl<It, Matches, char, std::regex_traits<char>>( \
      It, It, std::match_results<It, Matches>&, const std::basic_regex<char>&,                    \
      std::regex_constants::match_flag_type, std::__detail::_RegexExecutorPolicy, bool);

// One list for both sides: `LAB_CHECK_REGEX_INSTANCES(extern)` here, `LAB_CHECK_REGEX_INSTANCES()`
// in regex_instances.cpp. The executors need no entry: only __regex_algo_impl instantiates them.
#define LAB_CHECK_REGEX_INSTANCES(kind)                                                         \
  kind template class std::basic_regex<char>;                                                   \
  kind template class std::__detail::_Compiler<std::regex_traits<char>>;                        \
  LAB_CHECK_REGEX_ALGO(kind, labcheck::regex_instances::StringIt,                               \
                       labcheck::regex_instances::StringMatches)                                \
  LAB_CHECK_REGEX_ALGO(kind, labcheck::regex_instances::CharIt, labcheck::regex_instances::CharMatches)

LAB_CHECK_REGEX_INSTANCES(extern)
#endif
