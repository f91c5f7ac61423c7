"""
Decision rules: from label scores to label sets
===============================================

Binary relevance's default rule predicts a label when its log-odds are positive. On the
medical data set (clinical free text, 45 labels, most of them rare; from the benchmark data
beside the repository, ``../shared/data``), the multinomial model's log-odds are far from
calibrated and that rule misses many labels; the rules of ``mlnb.decision_rules`` cut the
scores otherwise (one global threshold, a threshold per label, proportions of the training
frequencies, the k best labels of each row, the largest gap, the training cardinality).
``TunedThresholdsCV`` chooses among them out of fold, and keeps the model's own rule unless
another beats it by more than a standard error; with ``param_grid="auto"`` it also chooses
the event model and its smoothing, which matters more here than the rule.
"""

import matplotlib.pyplot as plt

from mlnb import BinaryRelevance, TunedThresholdsCV
from mlnb.datasets import load_dataset
from mlnb.decision_rules import RULES
from mlnb.metrics import f1_score

train, test = load_dataset("medical", split="train_test")
X, Y, X_test, Y_test = train.X, train.Y, test.X, test.Y
n_fit = int(0.7 * X.shape[0])  # each rule is fitted on scores of rows the model did not see


def micro_f1(predicted):
    return f1_score(Y_test, predicted, average="micro")


model = BinaryRelevance(events="multinomial").fit(X, Y)
scores = {"0.5 (own)": micro_f1(model.predict(X_test))}
held_out = BinaryRelevance(events="multinomial").fit(X[:n_fit], Y[:n_fit])
validation_scores = held_out.decision_function(X[n_fit:])
for name, rule in RULES.items():
    fitted = rule().fit(validation_scores, Y[n_fit:])
    scores[name] = micro_f1(fitted.predict(model.decision_function(X_test)))
tuned = TunedThresholdsCV(BinaryRelevance(events="multinomial")).fit(X, Y)
scores[f"tuned ({tuned.best_strategy_})"] = micro_f1(tuned.predict(X_test))
# the rule together with the event model and its smoothing
auto = TunedThresholdsCV(BinaryRelevance(), param_grid="auto").fit(X, Y)
scores[f"tuned, param_grid='auto' ({auto.best_strategy_})"] = micro_f1(auto.predict(X_test))
print("param_grid='auto' chose", auto.best_params_)
for name, value in scores.items():
    print(f"{name:>20}: micro F1 {value:.3f}")

# the title over the whole figure: over the axes only, the long rule names push it past
# the figure's right edge
fig, ax = plt.subplots(figsize=(7, 4), layout="constrained")
ax.barh(list(scores), list(scores.values()), color=["grey"] + ["C0"] * len(RULES) + ["C3", "C1"])
ax.invert_yaxis()
ax.set_xlabel("test micro F1")
fig.suptitle("medical: one binary relevance NB model, different decision rules")
