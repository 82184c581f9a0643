// numpy arrays at the module's boundary: inputs read in place when they already have the right
// dtype and layout, converted from another floating-point type otherwise, refused (naming the
// argument) when they are integers, strings or objects; shapes checked naming the argument.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <type_traits>

#include "core/error.h"

namespace flashnerd::python {

namespace py = pybind11;

template <class T>
using Array = py::array_t<T, py::array::c_style | py::array::forcecast>;

// `obj` as a C-contiguous array of T: read in place when it already is one, else converted
// from another floating-point type (or bool for bool); integers, strings and objects are
// refused naming the argument, rather than silently cast.
template <class T>
Array<T> as_array(const py::object& obj, const char* name) {
  const py::array a = py::array::ensure(obj);
  FN_CHECK(a, name, ": expected a numpy array (or something numpy.asarray accepts)");
  const char kind = a.dtype().kind();
  const bool ok = std::is_same<T, bool>::value ? kind == 'b' : kind == 'f';
  FN_CHECK(ok, name, ": expected a ", std::is_same<T, bool>::value ? "bool" : "floating-point", " array, got dtype ",
           std::string(py::str(a.dtype())));
  return Array<T>::ensure(a);
}

// Checks a 2-D array's shape, naming the argument.
template <class T>
const T* checked(const Array<T>& a, const char* name, int64_t rows, int64_t cols) {
  FN_CHECK(a.ndim() == 2 && a.shape(0) == rows && a.shape(1) == cols, name, ": expected shape (", rows, ", ", cols,
           "), got ", a.ndim() == 2 ? str_cat("(", a.shape(0), ", ", a.shape(1), ")") : str_cat(a.ndim(), "-d array"));
  return a.data();
}

}  // namespace flashnerd::python
