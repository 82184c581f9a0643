// The teacher-forced training loss of a FlashNeRD model and its gradient without autograd: each
// block's forward and backward as a few large products (train/training_product.h: the norm's
// output meets [qkv; gate_up] in one product, the attention and FFN outputs are added to the
// residual stream by two accumulating products) with the elementwise work between them (norms,
// the banded attention with its lag bias, the gated activation, the readout, the masked loss)
// written by hand over buffers made once for the batch shape. Under bf16 the products read and
// return bf16, as autocast's do, while the residual stream, the norms' statistics, the softmax,
// the loss, every sum over rows and the weight gradients stay fp32 (autocast's residual stream
// is bf16 too). It computes what FlashNeRDModel::forward and libtorch's autograd compute
// (tests/train/fused_flash_pass_test.cpp), without libtorch's per-operation cost, which bounds
// training on small models.
//
// A model's contact encoder and gates stay libtorch modules: their outputs enter as added terms
// and the pass's gradients for them continue through autograd. Dropout and forecasts through
// the model's own steps train on the libtorch path (fused_flash_pass_refusal says why).
//
// Threads: rows (windows for the attention) are cut into one part per thread, and sums over
// rows (bias, norm and lag-bias gradients, the loss) are added in part order: the same bits
// for the same thread count.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "train/models.h"
#include "train/train_data.h"

namespace flashnerd::train {

// Terms a part outside the pass adds (each (B, W, width) or null): to the embedding
// (d_model), to the readout's activation (readout_hidden) and to the prediction (output_dim);
// the pass writes the loss gradient with respect to each given term where its grad points.
struct AddedTerms {
  const float* embed = nullptr;
  const float* readout = nullptr;
  const float* head = nullptr;
  float* embed_grad = nullptr;
  float* readout_grad = nullptr;
  float* head_grad = nullptr;
};

struct FusedLoss {
  double sse = 0;      // Σ mask · (ŷ − y)² over windows, positions and channels
  double weights = 0;  // Σ mask
};

// "" when model can train through the fused pass, else the reason it cannot.
std::string fused_flash_pass_refusal(const DynamicsModel& model, double dropout, bool forecast);

class FusedFlashPass {
 public:
  // model must outlive the pass; its parameters are read where libtorch keeps them, and their
  // gradients written into each parameter's .grad() (made here when undefined).
  FusedFlashPass(DynamicsModel& model, int batch, int window, bool bf16, int threads);
  ~FusedFlashPass();

  // inputs (B, W, input_dim), targets (B, W, output_dim), mask (B, W), standardized as the
  // batch source gathers them. Writes the gradient of grad_scale · sse into the parameters'
  // gradients (overwriting them) and returns the sums.
  FusedLoss forward_backward(const float* inputs, const float* targets, const float* mask, double grad_scale,
                             const AddedTerms& added = {});
  // The same on a gathered batch of this shape, with its contact rows through the model's
  // contact encoder (whose parameters' gradients it overwrites too).
  FusedLoss forward_backward(const WindowBatch& batch, double grad_scale);
  int batch() const;
  int window() const;
  // Seconds in forward_backward since construction, and the products' share of them.
  double seconds() const;
  double product_seconds() const;

  class Impl;

 private:
  DynamicsModel& model_;
  bool bf16_;
  std::vector<torch::Tensor> contact_parameters_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace flashnerd::train
