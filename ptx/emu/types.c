/* Type tables. */
#include "internal.h"

const emu_type_info emu_types[EMU_T_COUNT] = {
    [EMU_T_NONE] = {"", 0, EMU_K_NONE},  [EMU_T_PRED] = {"pred", 0, EMU_K_PRED},
    [EMU_T_B8] = {"b8", 1, EMU_K_BIT},   [EMU_T_B16] = {"b16", 2, EMU_K_BIT},
    [EMU_T_B32] = {"b32", 4, EMU_K_BIT}, [EMU_T_B64] = {"b64", 8, EMU_K_BIT},
    [EMU_T_U8] = {"u8", 1, EMU_K_U},     [EMU_T_U16] = {"u16", 2, EMU_K_U},
    [EMU_T_U32] = {"u32", 4, EMU_K_U},   [EMU_T_U64] = {"u64", 8, EMU_K_U},
    [EMU_T_S8] = {"s8", 1, EMU_K_S},     [EMU_T_S16] = {"s16", 2, EMU_K_S},
    [EMU_T_S32] = {"s32", 4, EMU_K_S},   [EMU_T_S64] = {"s64", 8, EMU_K_S},
    [EMU_T_F16] = {"f16", 2, EMU_K_F},   [EMU_T_F32] = {"f32", 4, EMU_K_F},
    [EMU_T_F64] = {"f64", 8, EMU_K_F},
};

int emu_type_tk(int t) {
  switch (t) {
  case EMU_T_B16:
  case EMU_T_U16:
    return EMU_TK_U16;
  case EMU_T_S16:
    return EMU_TK_S16;
  case EMU_T_B32:
  case EMU_T_U32:
    return EMU_TK_U32;
  case EMU_T_S32:
    return EMU_TK_S32;
  case EMU_T_B64:
  case EMU_T_U64:
    return EMU_TK_U64;
  case EMU_T_S64:
    return EMU_TK_S64;
  case EMU_T_F32:
    return EMU_TK_F32;
  case EMU_T_F64:
    return EMU_TK_F64;
  case EMU_T_PRED:
    return EMU_TK_PRED;
  default:
    return EMU_TK_OTHER;
  }
}

const char *const emu_cls_names[EMU_CLS_N] = {
    "int",       "float",     "conv",   "move",    "mem_global", "mem_shared", "mem_local",
    "mem_param", "mem_const", "atomic", "control", "sync",       "warp",       "other"};

static const char *const specials[EMU_SP_COUNT] = {
#define EMU_SPECIAL_NAME(id, name) name,
    EMU_SPECIALS(EMU_SPECIAL_NAME)
#undef EMU_SPECIAL_NAME
};

const char *emu_special_name(int k) {
  return specials[k];
}
