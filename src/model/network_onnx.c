/* ONNX models as simreach networks (SPEC §14), read with Debian's protobuf-c and the ONNX schema
   (C code generated at build time from onnx.proto by protoc-c; CMakeLists.txt).

   What is read: a graph with one input and one output whose nodes form one chain on a vector
   (batch 1) through the operators a feed-forward controller exports to:
     Gemm (transA 0; alpha, beta folded only when exact), Conv when it is a fully connected layer
     (MATLAB's export: kernel over the whole input), MatMul with a constant matrix followed by
     an Add of a constant (its bias), Relu, Tanh, Sigmoid, Identity, Flatten / Reshape / Squeeze /
     Unsqueeze of a vector, Constant, initializers (float32 or float64, typed fields or raw_data),
   and, as the network's input transform, Sub/Add then Div/Mul of constants before the first
   layer, and as its output transform Mul/Div then Add/Sub of constants after the last (the
   ARCH controllers' u = f(x) - 10).  Everything is checked before anything is built: an operator
   outside this set, a node off the chain, a second graph input, a dimension that does not match,
   a weight that is NaN or infinite, an element type other than float32/float64, a tensor whose
   data is short, or a constant that cannot be folded exactly is refused in one line naming the
   node (its name, or its index and operator) and what is allowed.

   The network's function is the real-arithmetic one of the stored weights (float32 weights are
   exact doubles); the enclosures enclose it. */
#include <simreach/network.h>

#include <onnx.pb-c.h>

#define SR_ONNX_SUPPORTED "Gemm, MatMul, Conv (fully connected: kernel over the whole input), Add, Sub, Mul, Div, Relu, Tanh, Sigmoid, Identity, Flatten, Reshape, Squeeze, Unsqueeze, Constant"

typedef struct {
  const char *name;
  int64_t     dims[8];
  int         ndims;
  PetscInt    numel;
  double     *v; /* owned */
} SRConst_Private;

typedef enum { SR_OP_AFFINE, SR_OP_ACT, SR_OP_ADD, SR_OP_MUL, SR_OP_DIV } SROpKind_Private;

typedef struct {
  SROpKind_Private kind;
  PetscInt         nin, nout; /* affine: W nout x nin */
  double          *W, *b;     /* affine (b may be NULL: MatMul without its Add yet); add/mul/div: b = the constant (nout values) */
  SRActivation     act;
  char             node[160]; /* for messages */
} SROp_Private;

typedef struct {
  const char      *path;
  SRConst_Private *c;
  PetscInt         nc, cap;
  SROp_Private    *op;
  PetscInt         nop;
} SROnnx_Private;

static const SRConst_Private *SROnnxFind_Private(SROnnx_Private *o, const char *name)
{
  for (PetscInt k = 0; k < o->nc; k++)
    if (!strcmp(o->c[k].name, name)) return &o->c[k];
  return NULL;
}

static void SROnnxNodeName_Private(const Onnx__NodeProto *nd, size_t i, char buf[], size_t len)
{
  if (nd->name && nd->name[0]) snprintf(buf, len, "node '%s' (%s)", nd->name, nd->op_type ? nd->op_type : "?");
  else snprintf(buf, len, "node %zu (%s)", i, nd->op_type ? nd->op_type : "?");
}

/* A tensor's values as doubles: float32 / float64 (typed field or raw_data, little endian), and
   int64 / int32 for shapes. */
static PetscErrorCode SROnnxAddTensor_Private(SROnnx_Private *o, const char *name, const Onnx__TensorProto *t, const char *where)
{
  SRConst_Private c = { 0 };
  const int       dt = t->has_data_type ? t->data_type : 0;
  size_t          have;

  PetscFunctionBeginUser;
  PetscCheck(t->n_dims <= 8, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: %s: tensor '%s' has %zu dimensions; at most 8 are read", o->path, where, name, t->n_dims);
  PetscCheck(!(t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: %s: tensor '%s' keeps its data in an external file; save the model with its weights inside (onnx.save(model, path, save_as_external_data=False))", o->path, where, name);
  c.name  = name;
  c.ndims = (int)t->n_dims;
  c.numel = 1;
  for (size_t d = 0; d < t->n_dims; d++) {
    PetscCheck(t->dims[d] >= 0 && t->dims[d] <= (1 << 24), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: %s: tensor '%s' has extent %lld in dimension %zu", o->path, where, name, (long long)t->dims[d], d);
    c.dims[d] = t->dims[d];
    c.numel *= (PetscInt)t->dims[d];
  }
  PetscCheck(c.numel <= (1 << 26), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: %s: tensor '%s' has %" PetscInt_FMT " values; at most 2^26 are read", o->path, where, name, c.numel);
  PetscCall(PetscMalloc1(PetscMax(c.numel, 1), &c.v));
  if (dt == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT) {
    have = t->has_raw_data ? t->raw_data.len / 4 : t->n_float_data;
    PetscCheck(have == (size_t)c.numel, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: %s: tensor '%s' has %zu float32 values for %" PetscInt_FMT " elements (truncated?)", o->path, where, name, have, c.numel);
    for (PetscInt k = 0; k < c.numel; k++) {
      float f;
      if (t->has_raw_data) memcpy(&f, t->raw_data.data + 4 * k, 4);
      else f = t->float_data[k];
      c.v[k] = (double)f;
    }
  } else if (dt == ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE) {
    have = t->has_raw_data ? t->raw_data.len / 8 : t->n_double_data;
    PetscCheck(have == (size_t)c.numel, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: %s: tensor '%s' has %zu float64 values for %" PetscInt_FMT " elements (truncated?)", o->path, where, name, have, c.numel);
    for (PetscInt k = 0; k < c.numel; k++) {
      if (t->has_raw_data) memcpy(&c.v[k], t->raw_data.data + 8 * k, 8);
      else c.v[k] = t->double_data[k];
    }
  } else if (dt == ONNX__TENSOR_PROTO__DATA_TYPE__INT64 || dt == ONNX__TENSOR_PROTO__DATA_TYPE__INT32) {
    const size_t sz = dt == ONNX__TENSOR_PROTO__DATA_TYPE__INT64 ? 8 : 4;
    have            = t->has_raw_data ? t->raw_data.len / sz : (sz == 8 ? t->n_int64_data : t->n_int32_data);
    PetscCheck(have == (size_t)c.numel, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: %s: tensor '%s' has %zu integer values for %" PetscInt_FMT " elements (truncated?)", o->path, where, name, have, c.numel);
    for (PetscInt k = 0; k < c.numel; k++) {
      int64_t i64 = 0;
      int32_t i32 = 0;
      if (sz == 8) {
        if (t->has_raw_data) memcpy(&i64, t->raw_data.data + 8 * k, 8);
        else i64 = t->int64_data[k];
      } else {
        if (t->has_raw_data) memcpy(&i32, t->raw_data.data + 4 * k, 4);
        else i32 = t->int32_data[k];
        i64 = i32;
      }
      c.v[k] = (double)i64;
    }
  } else {
    PetscCall(PetscFree(c.v));
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: %s: tensor '%s' has element type %d; allowed are float32 (1) and float64 (11) (int64/int32 for shapes)", o->path, where, name, dt);
  }
  for (PetscInt k = 0; k < c.numel; k++)
    if (!isfinite(c.v[k])) {
      const double bad = c.v[k];
      PetscCall(PetscFree(c.v));
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: %s: tensor '%s' value %" PetscInt_FMT " is %s; every weight must be finite", o->path, where, name, k, isnan(bad) ? "NaN" : "infinite");
    }
  if (o->nc == o->cap) {
    SRConst_Private *n;
    o->cap = PetscMax(16, 2 * o->cap);
    PetscCall(PetscMalloc1(o->cap, &n));
    if (o->nc) PetscCall(PetscArraycpy(n, o->c, o->nc));
    PetscCall(PetscFree(o->c));
    o->c = n;
  }
  o->c[o->nc++] = c;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static const Onnx__AttributeProto *SROnnxAttr_Private(const Onnx__NodeProto *nd, const char *name)
{
  for (size_t a = 0; a < nd->n_attribute; a++)
    if (nd->attribute[a]->name && !strcmp(nd->attribute[a]->name, name)) return nd->attribute[a];
  return NULL;
}

static PetscErrorCode SROnnxPush_Private(SROnnx_Private *o, SROp_Private op)
{
  PetscFunctionBeginUser;
  o->op[o->nop++] = op;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a constant of cur values: scalar broadcast or exactly cur values (any shape of one non-1 extent) */
static PetscErrorCode SROnnxVector_Private(SROnnx_Private *o, const SRConst_Private *c, PetscInt cur, const char *node, double **v)
{
  PetscFunctionBeginUser;
  PetscCheck(c->numel == 1 || c->numel == cur, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: %s: constant '%s' has %" PetscInt_FMT " values; the data path has %" PetscInt_FMT " (allowed: 1 or %" PetscInt_FMT ")", o->path, node, c->name, c->numel, cur, cur);
  PetscCall(PetscMalloc1(cur, v));
  for (PetscInt k = 0; k < cur; k++) (*v)[k] = c->numel == 1 ? c->v[0] : c->v[k];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a * b exactly in double, or refuse */
static PetscErrorCode SROnnxExactScale_Private(SROnnx_Private *o, const char *node, const char *what, double a, double *v, PetscInt n)
{
  PetscFunctionBeginUser;
  for (PetscInt k = 0; k < n; k++) {
    const double p = a * v[k];
    PetscCheck(fma(a, v[k], -p) == 0 && isfinite(p), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: %s: %s %g times weight %g is not exact in double; allowed are factors that fold exactly (e.g. 1, powers of 2, float32 weights)", o->path, node, what, a, v[k]);
    v[k] = p;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Walks the chain from the graph input to its output, filling o->op. */
static PetscErrorCode SROnnxChain_Private(SROnnx_Private *o, const Onnx__GraphProto *g, PetscInt *nin0)
{
  const char *cur = NULL;
  PetscInt    len = 1, ninputs = 0;

  PetscFunctionBeginUser;
  for (size_t k = 0; k < g->n_initializer; k++) PetscCall(SROnnxAddTensor_Private(o, g->initializer[k]->name ? g->initializer[k]->name : "", g->initializer[k], "initializer"));
  PetscCheck(g->n_sparse_initializer == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: sparse initializers are not supported; allowed are dense float32/float64 initializers", o->path);
  for (size_t k = 0; k < g->n_input; k++) {
    const Onnx__ValueInfoProto *vi = g->input[k];
    if (SROnnxFind_Private(o, vi->name)) continue; /* older exporters list initializers as inputs */
    ninputs++;
    PetscCheck(ninputs == 1, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: a second graph input '%s' (after '%s'); allowed is one input, the state vector", o->path, vi->name, cur);
    cur = vi->name;
    if (vi->type && vi->type->tensor_type && vi->type->tensor_type->shape) {
      const Onnx__TensorShapeProto *sh = vi->type->tensor_type->shape;
      PetscInt                      nfix = 0;
      const int                     et = vi->type->tensor_type->has_elem_type ? vi->type->tensor_type->elem_type : 1;
      PetscCheck(et == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT || et == ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: graph input '%s' has element type %d; allowed are float32 (1) and float64 (11)", o->path, cur, et);
      for (size_t d = 0; d < sh->n_dim; d++) {
        const Onnx__TensorShapeProto__Dimension *dm = sh->dim[d];
        if (dm->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE && dm->dim_value > 1) {
          len *= (PetscInt)dm->dim_value;
          nfix++;
        }
      }
      PetscCheck(nfix <= 1, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: graph input '%s' has %" PetscInt_FMT " dimensions of extent > 1; allowed is a vector (batch 1)", o->path, cur, nfix);
    }
  }
  PetscCheck(cur, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: the graph has no input (other than initializers)", o->path);
  PetscCheck(g->n_output == 1, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: the graph has %zu outputs; allowed is one", o->path, g->n_output);
  *nin0 = len;
  PetscCall(PetscMalloc1(g->n_node + 1, &o->op));
  for (size_t i = 0; i < g->n_node; i++) {
    const Onnx__NodeProto *nd = g->node[i];
    const char            *op = nd->op_type ? nd->op_type : "";
    char                   node[160];
    PetscInt               onpath = -1;
    SROp_Private           r = { 0 };

    SROnnxNodeName_Private(nd, i, node, sizeof node);
    PetscCheck(!nd->domain || !nd->domain[0] || !strcmp(nd->domain, "ai.onnx"), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: %s is from operator domain '%s'; supported are the standard operators %s", o->path, node, nd->domain, SR_ONNX_SUPPORTED);
    PetscCall(PetscStrncpy(r.node, node, sizeof r.node));
    if (!strcmp(op, "Constant")) {
      const Onnx__AttributeProto *a = SROnnxAttr_Private(nd, "value");
      PetscCheck(nd->n_output == 1 && a && a->t, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: %s: a Constant needs one output and a tensor attribute 'value' (value_float and the like are not read)", o->path, node);
      PetscCall(SROnnxAddTensor_Private(o, nd->output[0], a->t, node));
      continue;
    }
    {
      static const char *ok[] = { "Gemm", "MatMul", "Conv", "Add", "Sub", "Mul", "Div", "Relu", "Tanh", "Sigmoid", "Identity", "Flatten", "Reshape", "Squeeze", "Unsqueeze" };
      PetscBool          known = PETSC_FALSE;
      for (size_t k = 0; k < sizeof ok / sizeof ok[0]; k++) known = (PetscBool)(known || !strcmp(op, ok[k]));
      PetscCheck(known, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: %s: operator %s is not supported; supported are %s", o->path, node, op, SR_ONNX_SUPPORTED);
    }
    /* every input is the data path or a constant */
    for (size_t k = 0; k < nd->n_input; k++) {
      if (!nd->input[k][0]) continue; /* an omitted optional input */
      if (!strcmp(nd->input[k], cur)) {
        PetscCheck(onpath < 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: %s reads the data path twice; allowed is a chain", o->path, node);
        onpath = (PetscInt)k;
      } else PetscCheck(SROnnxFind_Private(o, nd->input[k]), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: %s: input '%s' is neither the data path ('%s') nor a constant; allowed is one chain of %s", o->path, node, nd->input[k], cur, SR_ONNX_SUPPORTED);
    }
    PetscCheck(onpath >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: %s does not read the data path '%s'; allowed is one chain from the graph input to its output", o->path, node, cur);
    PetscCheck(nd->n_output == 1, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: %s has %zu outputs; allowed is one", o->path, node, nd->n_output);
    if (!strcmp(op, "Gemm") || !strcmp(op, "MatMul")) {
      const PetscBool        gemm = (PetscBool)!strcmp(op, "Gemm");
      const Onnx__AttributeProto *tA = gemm ? SROnnxAttr_Private(nd, "transA") : NULL, *tB = gemm ? SROnnxAttr_Private(nd, "transB") : NULL;
      const Onnx__AttributeProto *al = gemm ? SROnnxAttr_Private(nd, "alpha") : NULL, *be = gemm ? SROnnxAttr_Private(nd, "beta") : NULL;
      const SRConst_Private      *B;
      const int                   transB = tB && tB->has_i ? (int)tB->i : 0;
      PetscInt                    kk, m;
      PetscCheck(onpath == 0 && nd->n_input >= 2, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: %s: the data path must be the first input (x W, a row vector); allowed are Gemm(x, W[, b]) and MatMul(x, W)", o->path, node);
      PetscCheck(!(tA && tA->has_i && tA->i), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: %s: transA = 1; allowed is transA = 0", o->path, node);
      B = SROnnxFind_Private(o, nd->input[1]);
      PetscCheck(B->ndims == 2, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: %s: weight '%s' has %d dimensions; allowed is a matrix", o->path, node, B->name, B->ndims);
      kk = (PetscInt)(transB ? B->dims[1] : B->dims[0]);
      m  = (PetscInt)(transB ? B->dims[0] : B->dims[1]);
      PetscCheck(kk == len, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: %s: weight '%s' takes %" PetscInt_FMT " inputs but the data path has %" PetscInt_FMT " (dimension mismatch)", o->path, node, B->name, kk, len);
      r.kind = SR_OP_AFFINE;
      r.nin  = kk;
      r.nout = m;
      PetscCall(PetscMalloc1(kk * m, &r.W));
      for (PetscInt a = 0; a < m; a++)
        for (PetscInt b = 0; b < kk; b++) r.W[a * kk + b] = transB ? B->v[a * kk + b] : B->v[b * m + a];
      if (al && al->has_f && al->f != 1.0f) PetscCall(SROnnxExactScale_Private(o, node, "alpha", (double)al->f, r.W, kk * m));
      if (gemm && nd->n_input >= 3 && nd->input[2][0]) {
        PetscCall(SROnnxVector_Private(o, SROnnxFind_Private(o, nd->input[2]), m, node, &r.b));
        if (be && be->has_f && be->f != 1.0f) PetscCall(SROnnxExactScale_Private(o, node, "beta", (double)be->f, r.b, m));
      } else if (gemm) PetscCall(PetscCalloc1(m, &r.b));
      len = m;
      PetscCall(SROnnxPush_Private(o, r));
    } else if (!strcmp(op, "Conv")) {
      /* MATLAB's export of a fully connected layer: Conv(x [1, C, H, W], W [M, C, H, W], b [M]),
         no padding, unit strides and dilations, one group; the kernel then covers the whole
         input (C H W = the vector's length) and the output is [1, M, 1, 1]: y = W x + b with
         W read row-wise, the same (c, h, w) order as the flattened input. */
      const SRConst_Private      *K;
      const Onnx__AttributeProto *g = SROnnxAttr_Private(nd, "group"), *pads = SROnnxAttr_Private(nd, "pads"), *st = SROnnxAttr_Private(nd, "strides"), *dl = SROnnxAttr_Private(nd, "dilations"), *ap = SROnnxAttr_Private(nd, "auto_pad");
      PetscInt                    m, kk = 1;
      PetscBool                   plain = (PetscBool)(!(g && g->has_i && g->i != 1) && !(ap && ap->has_s && ap->s.len && strncmp((const char *)ap->s.data, "NOTSET", ap->s.len) && strncmp((const char *)ap->s.data, "VALID", ap->s.len)));
      for (size_t k = 0; pads && k < pads->n_ints; k++) plain = (PetscBool)(plain && pads->ints[k] == 0);
      for (size_t k = 0; st && k < st->n_ints; k++) plain = (PetscBool)(plain && st->ints[k] == 1);
      for (size_t k = 0; dl && k < dl->n_ints; k++) plain = (PetscBool)(plain && dl->ints[k] == 1);
      PetscCheck(onpath == 0 && nd->n_input >= 2 && plain, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: %s: allowed is a Conv that is a fully connected layer (data first, no padding, unit strides and dilations, one group)", o->path, node);
      K = SROnnxFind_Private(o, nd->input[1]);
      PetscCheck(K->ndims >= 2, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: %s: kernel '%s' has %d dimensions", o->path, node, K->name, K->ndims);
      m = (PetscInt)K->dims[0];
      for (int d = 1; d < K->ndims; d++) kk *= (PetscInt)K->dims[d];
      { /* kernel_shape, when given, is the weights' spatial extent (ONNX Conv); a contradiction is refused (issue 34) */
        const Onnx__AttributeProto *ks = SROnnxAttr_Private(nd, "kernel_shape");
        PetscBool                   same = (PetscBool)(!ks || (int)ks->n_ints == K->ndims - 2);
        for (size_t k = 0; ks && same && k < ks->n_ints; k++) same = (PetscBool)(ks->ints[k] == K->dims[2 + k]);
        PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: %s: attribute kernel_shape (%d entries, first %lld) contradicts the kernel '%s' of %d dimensions (spatial extent first %lld); they must agree", o->path, node, ks ? (int)ks->n_ints : 0, ks && ks->n_ints ? (long long)ks->ints[0] : -1LL, K->name, K->ndims, K->ndims > 2 ? (long long)K->dims[2] : -1LL);
      }
      PetscCheck(kk == len, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: %s: kernel '%s' covers %" PetscInt_FMT " inputs but the data path has %" PetscInt_FMT "; allowed is a kernel over the whole input (fully connected)", o->path, node, K->name, kk, len);
      r.kind = SR_OP_AFFINE;
      r.nin  = kk;
      r.nout = m;
      PetscCall(PetscMalloc1(kk * m, &r.W));
      PetscCall(PetscArraycpy(r.W, K->v, kk * m));
      if (nd->n_input >= 3 && nd->input[2][0]) PetscCall(SROnnxVector_Private(o, SROnnxFind_Private(o, nd->input[2]), m, node, &r.b));
      else PetscCall(PetscCalloc1(m, &r.b));
      len = m;
      PetscCall(SROnnxPush_Private(o, r));
    } else if (!strcmp(op, "Add") || !strcmp(op, "Sub") || !strcmp(op, "Mul") || !strcmp(op, "Div")) {
      const SRConst_Private *C;
      PetscCheck(nd->n_input == 2, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: %s needs two inputs", o->path, node);
      C = SROnnxFind_Private(o, nd->input[1 - onpath]);
      PetscCheck(onpath == 0 || op[0] == 'A' || op[0] == 'M', PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: %s: constant %s data path; allowed is data path %s constant", o->path, node, op, op);
      PetscCall(SROnnxVector_Private(o, C, len, node, &r.b));
      r.nin = r.nout = len;
      if (op[0] == 'S') { /* x - c = x + (-c), exact */
        for (PetscInt k = 0; k < len; k++) r.b[k] = -r.b[k];
        r.kind = SR_OP_ADD;
      } else r.kind = op[0] == 'A' ? SR_OP_ADD : (op[0] == 'M' ? SR_OP_MUL : SR_OP_DIV);
      if (r.kind == SR_OP_DIV)
        for (PetscInt k = 0; k < len; k++) PetscCheck(r.b[k] != 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: %s: division by 0 (constant '%s' value %" PetscInt_FMT ")", o->path, node, C->name, k);
      PetscCall(SROnnxPush_Private(o, r));
    } else if (!strcmp(op, "Relu") || !strcmp(op, "Tanh") || !strcmp(op, "Sigmoid")) {
      r.kind = SR_OP_ACT;
      r.act  = op[0] == 'R' ? SR_ACT_RELU : (op[0] == 'T' ? SR_ACT_TANH : SR_ACT_SIGMOID);
      r.nin = r.nout = len;
      PetscCall(SROnnxPush_Private(o, r));
    } else if (!strcmp(op, "Reshape")) { /* of a vector: the target shape keeps one extent > 1 equal to len */
      const SRConst_Private *S = nd->n_input >= 2 ? SROnnxFind_Private(o, nd->input[1]) : NULL;
      PetscInt               big = 0;
      PetscCheck(onpath == 0 && S, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: %s: allowed is Reshape(data, constant shape)", o->path, node);
      for (PetscInt k = 0; k < S->numel; k++) {
        const double e = S->v[k];
        PetscCheck(e == -1 || e == 0 || e == 1 || e == (double)len, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: %s: target extent %g of a vector of %" PetscInt_FMT "; allowed are reshapes of a vector (extents 1, -1, 0 or %" PetscInt_FMT ")", o->path, node, e, len, len);
        big += (e == (double)len && len > 1) || e == -1;
      }
      PetscCheck(big <= 1, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: %s: the target shape is not a vector", o->path, node);
    } else {
      /* Identity, Flatten, Squeeze, Unsqueeze: the vector passes unchanged (batch 1) */
      PetscCheck(onpath == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: %s: the data must be the first input", o->path, node);
    }
    cur = nd->output[0];
  }
  PetscCheck(!strcmp(cur, g->output[0]->name), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: the chain ends at '%s' but the graph output is '%s'", o->path, cur, g->output[0]->name);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ops -> layers: [Add][Mul|Div] (input transform) (Affine [Add] [Act])+ [Mul|Div][Add] (output transform) */
static PetscErrorCode SROnnxBuild_Private(SROnnx_Private *o, PetscInt nin0, SRMLP *mlp)
{
  PetscInt     p = 0, nl = 0, hw[SR_MAX_LAYERS + 1], first, last;
  double      *mean = NULL, *range = NULL, *osc = NULL, *ooff = NULL;
  SRActivation acts[SR_MAX_LAYERS + 1];
  SROp_Private *L[SR_MAX_LAYERS + 1];

  PetscFunctionBeginUser;
  /* input transform: x + a (a = -mean), then x * s or x / r */
  if (p < o->nop && o->op[p].kind == SR_OP_ADD) {
    PetscCall(PetscMalloc1(nin0, &mean));
    for (PetscInt k = 0; k < nin0; k++) mean[k] = -o->op[p].b[k];
    p++;
  }
  if (p < o->nop && (o->op[p].kind == SR_OP_MUL || o->op[p].kind == SR_OP_DIV)) {
    PetscCall(PetscMalloc1(nin0, &range));
    for (PetscInt k = 0; k < nin0; k++) {
      const double v = o->op[p].b[k];
      if (o->op[p].kind == SR_OP_DIV) range[k] = v;
      else { /* x * s = x / (1/s) only when 1/s is exact: s a power of two */
        int e;
        PetscCheck(frexp(v, &e) == 0.5 || frexp(v, &e) == -0.5, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: %s: an input scaling by %g before the first layer; allowed are Div by a constant or Mul by a power of 2 (exact)", o->path, o->op[p].node, v);
        range[k] = 1.0 / v;
      }
      PetscCheck(range[k] > 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: %s: input scaling %g; allowed are positive scalings", o->path, o->op[p].node, v);
    }
    p++;
  }
  first = p;
  /* the layers */
  while (p < o->nop && o->op[p].kind == SR_OP_AFFINE) {
    PetscCheck(nl <= SR_MAX_LAYERS, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: more than %d affine layers; allowed are at most %d hidden layers", o->path, SR_MAX_LAYERS + 1, SR_MAX_LAYERS);
    L[nl] = &o->op[p++];
    if (!L[nl]->b) { /* MatMul: its bias is the following Add, or zero */
      if (p < o->nop && o->op[p].kind == SR_OP_ADD) { /* W x + c: the same function as a bias */
        L[nl]->b   = o->op[p].b;
        o->op[p].b = NULL;
        p++;
      } else PetscCall(PetscCalloc1(L[nl]->nout, &L[nl]->b));
    }
    acts[nl] = SR_ACT_LINEAR;
    if (p < o->nop && o->op[p].kind == SR_OP_ACT) acts[nl] = o->op[p++].act;
    PetscCheck(!(p < o->nop && o->op[p].kind == SR_OP_ACT), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: %s: two activations in a row; allowed is one after each Gemm/MatMul", o->path, o->op[p].node);
    nl++;
  }
  last = p;
  PetscCheck(nl >= 1, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: no Gemm or MatMul layer%s%s; allowed is a feed-forward network", o->path, first < o->nop ? " before " : "", first < o->nop ? o->op[first].node : "");
  /* output transform: [Mul|Div] then [Add] */
  if (p < o->nop && (o->op[p].kind == SR_OP_MUL || o->op[p].kind == SR_OP_DIV)) {
    const PetscInt m = L[nl - 1]->nout;
    PetscCall(PetscMalloc2(m, &osc, m, &ooff));
    for (PetscInt k = 0; k < m; k++) {
      const double v = o->op[p].b[k];
      int          e;
      PetscCheck(o->op[p].kind == SR_OP_MUL || frexp(v, &e) == 0.5 || frexp(v, &e) == -0.5, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: %s: an output division by %g; allowed are Mul by a constant or Div by a power of 2 (exact)", o->path, o->op[p].node, v);
      osc[k]  = o->op[p].kind == SR_OP_MUL ? v : 1.0 / v;
      ooff[k] = 0.0;
    }
    p++;
  }
  if (p < o->nop && o->op[p].kind == SR_OP_ADD) {
    const PetscInt m = L[nl - 1]->nout;
    if (!osc) {
      PetscCall(PetscMalloc2(m, &osc, m, &ooff));
      for (PetscInt k = 0; k < m; k++) osc[k] = 1.0;
    }
    for (PetscInt k = 0; k < m; k++) ooff[k] = o->op[p].b[k];
    p++;
  }
  PetscCheck(p == o->nop, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: %s after the last layer%s; allowed after the last layer are Mul/Div then Add/Sub of constants (the output scaling), and before the first Sub/Add then Div/Mul (the input normalisation)", o->path, o->op[p].node, last < p ? " and its output scaling" : "");
  PetscCheck(nl >= 2, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: one affine layer and no hidden layer; allowed are 1 to %d hidden layers", o->path, SR_MAX_LAYERS);
  for (PetscInt l = 1; l < nl; l++) hw[l - 1] = L[l]->nin;
  PetscCheck(L[0]->nin == nin0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: the first layer takes %" PetscInt_FMT " inputs, the graph input has %" PetscInt_FMT, o->path, L[0]->nin, nin0);
  PetscCall(SRMLPCreate(L[0]->nin, nl - 1, hw, L[nl - 1]->nout, mlp));
  for (PetscInt l = 0; l < nl; l++) {
    PetscCall(PetscArraycpy((*mlp)->params + (*mlp)->woff[l], L[l]->W, L[l]->nin * L[l]->nout));
    PetscCall(PetscArraycpy((*mlp)->params + (*mlp)->boff[l], L[l]->b, L[l]->nout));
    PetscCall(SRMLPSetActivation(*mlp, l, acts[l]));
  }
  if (mean || range) {
    double *lo, *hi, *mn, *rg;
    PetscCall(PetscMalloc4(nin0, &lo, nin0, &hi, nin0, &mn, nin0, &rg));
    for (PetscInt k = 0; k < nin0; k++) {
      lo[k] = -INFINITY;
      hi[k] = INFINITY;
      mn[k] = mean ? mean[k] : 0.0;
      rg[k] = range ? range[k] : 1.0;
    }
    PetscCall(SRMLPSetInputTransform(*mlp, lo, hi, mn, rg));
    PetscCall(PetscFree4(lo, hi, mn, rg));
  }
  if (osc) PetscCall(SRMLPSetOutputTransform(*mlp, osc, ooff));
  PetscCall(PetscFree(mean));
  PetscCall(PetscFree(range));
  if (osc) PetscCall(PetscFree2(osc, ooff));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SRNetworkReadONNX(const char path[], SRNetworkInfo *info, SRMLP *mlp)
{
  FILE              *fp;
  long               sz;
  uint8_t           *buf;
  Onnx__ModelProto  *m;
  SROnnx_Private     o = { 0 };
  PetscInt           nin0;
  PetscErrorCode     ierr;

  PetscFunctionBeginUser;
  fp = fopen(path, "rb");
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "-network %s: cannot open", path);
  fseek(fp, 0, SEEK_END);
  sz = ftell(fp);
  fseek(fp, 0, SEEK_SET);
  if (sz <= 0 || sz > (1L << 30)) fclose(fp);
  PetscCheck(sz > 0 && sz <= (1L << 30), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: %ld bytes; allowed are 1 byte to 1 GiB", path, sz);
  PetscCall(PetscMalloc1(sz, &buf));
  if (fread(buf, 1, (size_t)sz, fp) != (size_t)sz) {
    fclose(fp);
    PetscCall(PetscFree(buf));
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "ONNX %s: short read", path);
  }
  fclose(fp);
  m = onnx__model_proto__unpack(NULL, (size_t)sz, buf);
  PetscCall(PetscFree(buf));
  PetscCheck(m, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: not a valid ONNX model (protobuf decoding failed: truncated?); it is no HDF5 or NNet file either", path);
  if (!m->graph) onnx__model_proto__free_unpacked(m, NULL);
  PetscCheck(m->graph, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "ONNX %s: the model has no graph", path);
  o.path = path;
  ierr   = SROnnxChain_Private(&o, m->graph, &nin0);
  if (!ierr) ierr = SROnnxBuild_Private(&o, nin0, mlp);
  if (info && !ierr) {
    PetscCall(PetscMemzero(info, sizeof *info));
    info->format = SR_NETFMT_ONNX;
    snprintf(info->producer, sizeof info->producer, "%s %s (IR version %lld)", m->producer_name ? m->producer_name : "", m->producer_version ? m->producer_version : "", (long long)m->ir_version);
  }
  onnx__model_proto__free_unpacked(m, NULL);
  for (PetscInt k = 0; k < o.nc; k++) PetscCall(PetscFree(o.c[k].v));
  PetscCall(PetscFree(o.c));
  for (PetscInt k = 0; k < o.nop; k++) {
    PetscCall(PetscFree(o.op[k].W));
    PetscCall(PetscFree(o.op[k].b));
  }
  PetscCall(PetscFree(o.op));
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}
