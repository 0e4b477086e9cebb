// Reconstruction for the evaluation (own text): TensorRT-LLM reads the SM number once.
#pragma once
int getSMVersion();
constexpr int kSM_90 = 90;
constexpr int kSM_100 = 100;
constexpr int kSM_120 = 120;
