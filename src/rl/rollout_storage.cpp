#include "rl/rollout_storage.h"

#include "core/error.h"

namespace flashnerd::rl {

RolloutStorage::RolloutStorage(int steps_per_env, int envs, int observation_dim, int action_dim)
    : T_(steps_per_env), E_(envs), obs_dim_(observation_dim), act_dim_(action_dim) {
  const int64_t T = T_, E = E_;
  obs_ = torch::zeros({T, E, observation_dim});
  actions_ = torch::zeros({T, E, action_dim});
  mu_ = torch::zeros({T, E, action_dim});
  sigma_ = torch::zeros({T, E, action_dim});
  rewards_ = torch::zeros({T, E});
  dones_ = torch::zeros({T, E});
  values_ = torch::zeros({T, E});
  logp_ = torch::zeros({T, E});
  returns_ = torch::zeros({T, E});
  advantages_ = torch::zeros({T, E});
}

double RolloutStorage::bytes_needed(int steps_per_env, int envs, int observation_dim, int action_dim) {
  // observations, actions, means, stds and six scalars per transition, twice over for the
  // minibatch copies
  return 2.0 * double(envs) * steps_per_env * (observation_dim + 2.0 * action_dim + 8) * sizeof(float);
}

void RolloutStorage::add_step(int t, int first_env, const torch::Tensor& obs, const torch::Tensor& actions,
                              const torch::Tensor& mu, const torch::Tensor& sigma, const torch::Tensor& values,
                              const torch::Tensor& log_prob) {
  const int64_t rows = obs.size(0);
  FN_CHECK(first_env >= 0 && first_env + rows <= E_, "rollout storage: environments [", first_env, ", ",
           first_env + rows, ") beyond its ", E_);
  obs_[t].narrow(0, first_env, rows).copy_(obs);
  actions_[t].narrow(0, first_env, rows).copy_(actions);
  mu_[t].narrow(0, first_env, rows).copy_(mu);
  sigma_[t].narrow(0, first_env, rows).copy_(sigma);
  values_[t].narrow(0, first_env, rows).copy_(values);
  logp_[t].narrow(0, first_env, rows).copy_(log_prob);
}

void RolloutStorage::add_outcome(int t, int first_env, int rows, const float* rewards, const uint8_t* terminated,
                                 const uint8_t* timed_out, const float* bootstrap) {
  FN_CHECK(first_env >= 0 && first_env + rows <= E_, "rollout storage: environments [", first_env, ", ",
           first_env + rows, ") beyond its ", E_);
  float* r = rewards_[t].data_ptr<float>() + first_env;
  float* d = dones_[t].data_ptr<float>() + first_env;
  for (int e = 0; e < rows; ++e) {
    r[e] = rewards[e] + (timed_out[e] ? bootstrap[e] : 0.0f);
    d[e] = (terminated[e] || timed_out[e]) ? 1.0f : 0.0f;
  }
}

void RolloutStorage::compute_returns(const torch::Tensor& last_values, double gamma, double lambda) {
  torch::NoGradGuard no_grad;
  torch::Tensor next_value = last_values;
  torch::Tensor adv = torch::zeros({int64_t(E_)});
  for (int64_t t = T_ - 1; t >= 0; --t) {
    const torch::Tensor not_done = 1.0 - dones_[t];
    const torch::Tensor delta = rewards_[t] + gamma * next_value * not_done - values_[t];
    adv = delta + gamma * lambda * not_done * adv;
    advantages_[t].copy_(adv);
    next_value = values_[t];
  }
  returns_.copy_(advantages_ + values_);
  advantages_.copy_((advantages_ - advantages_.mean()) / (advantages_.std() + 1e-8));
}

PpoBatchView RolloutStorage::batch() const {
  return {obs_.data_ptr<float>(),     actions_.data_ptr<float>(), mu_.data_ptr<float>(),
          sigma_.data_ptr<float>(),   values_.data_ptr<float>(),  logp_.data_ptr<float>(),
          returns_.data_ptr<float>(), advantages_.data_ptr<float>(), transitions()};
}

}  // namespace flashnerd::rl
