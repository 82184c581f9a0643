// OptionError: the library names the option field; what() reads on its own, and each front
// end renames the field and every option_ref in the problem through its own table.
#include "core/option_error.h"

#include <gtest/gtest.h>

#include "core/system_memory.h"

namespace flashnerd {
namespace {

std::string as_flag(const std::string& field) { return field == "batch" ? "--batch" : "--" + field; }

TEST(OptionError, NamesTheFieldAndReadsOnItsOwn) {
  try {
    const int world = 2;
    FN_CHECK_OPTION(5 % world == 0, "batch", "must be divisible by the world size ", world);
    FAIL() << "no throw";
  } catch (const OptionError& e) {
    EXPECT_EQ(e.field(), "batch");
    EXPECT_STREQ(e.what(), "batch: must be divisible by the world size 2");
    EXPECT_EQ(e.message(as_flag), "--batch: must be divisible by the world size 2");
  }
  EXPECT_NO_THROW(FN_CHECK_OPTION(true, "batch", "never"));
}

TEST(OptionError, RenamesTheOptionsItsProblemNames) {
  const OptionError e("out", str_cat("runs/a already holds config.json; pass ", option_ref("overwrite"),
                                     " to replace it, or ", option_ref("refresh.updates"), " 0"));
  EXPECT_STREQ(e.what(), "out: runs/a already holds config.json; pass overwrite to replace it, or refresh.updates 0");
  EXPECT_EQ(e.message([](const std::string& f) { return f == "refresh.updates" ? "--refresh-updates" : "--" + f; }),
            "--out: runs/a already holds config.json; pass --overwrite to replace it, or --refresh-updates 0");
  EXPECT_EQ(e.message([](const std::string& f) { return f + "="; }),
            "out=: runs/a already holds config.json; pass overwrite= to replace it, or refresh.updates= 0");
}

TEST(OptionError, WithoutAFieldHasNoPrefix) {  // a run too large: its fix names options
  const OptionError e("", str_cat("a run would need 1 TB; lower ", option_ref("samples")));
  EXPECT_EQ(e.field(), "");
  EXPECT_STREQ(e.what(), "a run would need 1 TB; lower samples");
  EXPECT_EQ(e.message(as_flag), "a run would need 1 TB; lower --samples");
  try {
    check_memory_fits(1e30, "a plan", str_cat("lower ", option_ref("samples")));
    FAIL() << "1e30 bytes fit";
  } catch (const OptionError& m) {
    EXPECT_NE(m.message(as_flag).find("available; lower --samples"), std::string::npos) << m.what();
    EXPECT_EQ(std::string(m.what()).find('\x1f'), std::string::npos) << "marks leak into what()";
  }
}

TEST(OptionError, FrontEndsRenameThroughOneTable) {
  constexpr OptionName kFlags[] = {{"envs", "--envs"}, {"refresh.updates", "--refresh-updates"}};
  EXPECT_EQ(option_name(kFlags, "refresh.updates"), "--refresh-updates");
  EXPECT_EQ(option_name(kFlags, "robot_root_body"), "robot_root_body");  // not in the table: its own name
  const OptionError e("envs", "must be >= 1 (got 0)");
  EXPECT_EQ(e.message([&](const std::string& f) { return option_name(kFlags, f); }), "--envs: must be >= 1 (got 0)");
}

TEST(OptionError, IsAnError) {  // every catch of flashnerd::Error still sees it
  EXPECT_THROW(FN_CHECK_OPTION(false, "steps", "must be >= 1"), Error);
}

}  // namespace
}  // namespace flashnerd
